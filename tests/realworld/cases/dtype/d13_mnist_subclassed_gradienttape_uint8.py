# realworld-source: https://github.com/sicara/tf-explain/issues/79
# realworld-family: dtype
# realworld-error: uint8 provided as "input" is not in list of allowed datatypes (after MNIST was loaded without astype(np.float32))
# realworld-key: Incompatible type conversion requested to type uint8
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: tf-integer-input
# realworld-why: subclassed Keras model, tf.data pipeline over the uint8 arrays, custom GradientTape loop
import numpy as np
import tensorflow as tf


class MnistClassifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv1 = tf.keras.layers.Conv2D(32, (3, 3), activation='relu')  # expect-here
        self.conv2 = tf.keras.layers.Conv2D(64, (3, 3), activation='relu', name='target_layer')
        self.pool = tf.keras.layers.MaxPool2D((2, 2))
        self.flatten = tf.keras.layers.Flatten()
        self.out = tf.keras.layers.Dense(10)

    def call(self, x):
        x = self.conv1(x)  # expect-here
        x = self.pool(self.conv2(x))
        return self.out(self.flatten(x))


def load_data(n=32):
    train_images = np.random.randint(0, 256, size=(n, 28, 28, 1), dtype=np.uint8)
    train_labels = np.random.randint(0, 10, size=(n,))
    return train_images, train_labels


if __name__ == "__main__":
    train_images, train_labels = load_data()
    ds = tf.data.Dataset.from_tensor_slices((train_images, train_labels)).batch(8)  # expect-here
    model = MnistClassifier()
    optimizer = tf.keras.optimizers.Adam()
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    for images, labels in ds:
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(images))  # expect-here
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    print(float(loss))
