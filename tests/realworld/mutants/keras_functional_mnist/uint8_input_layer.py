# realworld-source: mutant of the keras_functional_mnist tutorial model (written here): uint8 input layer
# realworld-family: dtype
# realworld-error: TypeError: Value passed to parameter 'input' has DataType uint8 not in list of allowed values (the Input declared uint8)
# realworld-key: has DataType uint8 not in list of allowed values
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: tf-integer-input
import numpy as np
import tensorflow as tf

INPUT_SHAPE = (28, 28, 1)
KERNEL_SIZE = (3, 3)


def build_model():
    img_input = tf.keras.Input(INPUT_SHAPE, dtype='uint8')  # expect-here
    x = tf.keras.layers.Conv2D(filters=32, kernel_size=KERNEL_SIZE, activation='relu')(img_input)  # expect-here
    x = tf.keras.layers.Conv2D(filters=64, kernel_size=KERNEL_SIZE, activation='relu', name='target_layer')(x)
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
