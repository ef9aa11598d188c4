# realworld-source: mutant of the keras_functional_mnist tutorial model (written here): input 4px
# realworld-family: shape
# realworld-error: ValueError: Computed output size would be zero or negative. Received `inputs shape=(None, 2, 2, 32)`, `kernel shape=(3, 3, 32, 64)`
# realworld-key: Computed output size would be zero or negative
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: conv-input-smaller-than-kernel
import numpy as np
import tensorflow as tf

INPUT_SHAPE = (4, 4, 1)  # expect-here
KERNEL_SIZE = (3, 3)


def build_model():
    img_input = tf.keras.Input(INPUT_SHAPE)
    x = tf.keras.layers.Conv2D(filters=32, kernel_size=KERNEL_SIZE, activation='relu')(img_input)
    x = tf.keras.layers.Conv2D(filters=64, kernel_size=KERNEL_SIZE, activation='relu', name='target_layer')(x)  # expect-here
    x = tf.keras.layers.MaxPool2D(pool_size=(2, 2))(x)
    x = tf.keras.layers.Flatten()(x)
    x = tf.keras.layers.Dense(10, activation='softmax')(x)
    return tf.keras.Model(img_input, x)


def load_data(n=32):
    train_images = np.random.randint(0, 256, size=(n,) + INPUT_SHAPE, dtype=np.uint8)
    train_labels = np.random.randint(0, 10, size=(n,))
    return train_images, train_labels


if __name__ == "__main__":
    train_images, train_labels = load_data()
    model = build_model()
    model.compile(optimizer='adam', loss='sparse_categorical_crossentropy')
    model.fit(train_images, train_labels, batch_size=8, epochs=1, verbose=0)
    print(model.predict(train_images, verbose=0).shape)
