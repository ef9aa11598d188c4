# realworld-source: mutant of the keras_sequential_mnist tutorial model (written here): batch size zero
# realworld-family: loader
# realworld-error: InvalidArgumentError: Batch size must be greater than zero. [Op:BatchDatasetV2]
# realworld-key: Batch size must be greater than zero
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: loader-batch-size-nonpositive
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

num_classes = 10
input_shape = (28, 28, 1)
batch_size = 0  # expect-here
bn_epsilon = 1e-3


def build_model():
    return keras.Sequential([
        keras.Input(shape=input_shape),
        layers.Conv2D(16, kernel_size=(3, 3), activation="relu"),
        layers.BatchNormalization(epsilon=bn_epsilon),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(num_classes, activation="softmax"),
    ])


if __name__ == "__main__":
    x_train = np.random.rand(64, 28, 28, 1).astype("float32")
    y_train = keras.utils.to_categorical(np.random.randint(0, num_classes, 64), num_classes)
    model = build_model()
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(batch_size)  # expect-here
    history = model.fit(ds, epochs=1, verbose=0)
    print("loss", history.history["loss"][-1])
