# realworld-source: https://github.com/keras-team/keras/issues/12951
# realworld-family: shape
# realworld-error: ValueError: Negative dimension size caused by subtracting 3 from 1 for 'conv2d_8/convolution' (op: 'Conv2D') with input shapes: [?,1,1,64], [3,3,64,128]
# realworld-key: Computed output size would be zero or negative
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU (Keras 3 words it "Computed output size would be zero or negative")
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: Keras Sequential built with model.add, input_shape on the first layer
from tensorflow.keras import layers, models

IMG_ROWS, IMG_COLS = 28, 28


def build_model(num_classes=10):
    model = models.Sequential()
    model.add(layers.Conv2D(16, (3, 3), activation='relu', input_shape=(IMG_ROWS, IMG_COLS, 1)))
    model.add(layers.MaxPooling2D((2, 2)))
    model.add(layers.Conv2D(32, (3, 3), activation='relu'))
    model.add(layers.MaxPooling2D((2, 2)))
    model.add(layers.Conv2D(64, (3, 3), activation='relu'))
    model.add(layers.MaxPooling2D((2, 2)))
    model.add(layers.Conv2D(128, (3, 3), activation='relu'))  # expect-here
    model.add(layers.MaxPooling2D((2, 2)))
    model.add(layers.Flatten())
    model.add(layers.Dense(num_classes, activation='softmax'))
    return model


if __name__ == "__main__":
    model = build_model()
    model.summary()
