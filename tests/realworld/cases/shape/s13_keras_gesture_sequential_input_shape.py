# realworld-source: https://github.com/asingh33/CNNGestureRecognizer/issues/56
# realworld-family: shape
# realworld-error: ValueError: Negative dimension size caused by subtracting 3 from 1 for 'conv2d_1/convolution' (op: 'Conv2D') with input shapes: [?,1,200,200], [3,3,200,32].
# realworld-key: Computed output size would be zero or negative
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: Sequential built by model.add inside a function; input_shape from channels-first module constants
from tensorflow.keras.layers import Activation, Conv2D, Dense, Dropout, Flatten, MaxPooling2D
from tensorflow.keras.models import Sequential

img_rows, img_cols = 200, 200
img_channels = 1
nb_filters = 32
nb_pool = 2
nb_conv = 3


def loadCNN(nb_classes=5):
    model = Sequential()
    model.add(Conv2D(nb_filters, (nb_conv, nb_conv), padding='valid',  # expect-here
                     input_shape=(img_channels, img_rows, img_cols)))  # expect-here
    model.add(Activation('relu'))
    model.add(Conv2D(nb_filters, (nb_conv, nb_conv)))
    model.add(Activation('relu'))
    model.add(MaxPooling2D(pool_size=(nb_pool, nb_pool)))
    model.add(Dropout(0.5))
    model.add(Flatten())
    model.add(Dense(128))
    model.add(Activation('relu'))
    model.add(Dense(nb_classes))
    model.add(Activation('softmax'))
    return model


if __name__ == "__main__":
    model = loadCNN()
    model.compile(loss='categorical_crossentropy', optimizer='adadelta')
    model.summary()
