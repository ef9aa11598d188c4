# realworld-source: mutant of the keras_sequential_mnist tutorial model (written here): eps negative
# realworld-family: batchnorm
# realworld-error: training loss nan (BatchNormalization(epsilon=-1.0): rsqrt of a negative variance)
# realworld-key: nan
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: bn-eps-negative
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

num_classes = 10
input_shape = (28, 28, 1)
batch_size = 16
bn_epsilon = -1.0  # expect-here


def build_model():
    return keras.Sequential([
        keras.Input(shape=input_shape),
        layers.Conv2D(16, kernel_size=(3, 3), activation="relu"),
        layers.BatchNormalization(epsilon=bn_epsilon),  # expect-here
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
    ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(batch_size)
    history = model.fit(ds, epochs=1, verbose=0)
    print("loss", history.history["loss"][-1])
