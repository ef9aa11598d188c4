# realworld-source: https://github.com/EvilPort2/Sign-Language/issues/51
# realworld-family: dtype
# realworld-error: TypeError: Value passed to parameter 'input' has DataType uint8 not in list of allowed values: float16, bfloat16, float32, float64, int32
# realworld-key: Incompatible type conversion requested to type uint8
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU (Keras 3 words it "Incompatible type conversion requested to type uint8"; note: a Keras 3 Sequential/Functional model with an Input casts uint8 to float32 and runs, so the reporter's model function calls the layers directly)
# realworld-expect: tf-integer-input
# realworld-why: estimator-style model function calling Keras layers directly on a reshaped uint8 feature tensor
import numpy as np
import tensorflow as tf

image_x, image_y = 50, 50


def cnn_model_fn(features, num_of_classes=44):
    input_layer = tf.reshape(features["x"], [-1, image_x, image_y, 1])  # expect-here
    conv1 = tf.keras.layers.Conv2D(filters=16, kernel_size=[2, 2], padding="same", activation="relu")(input_layer)  # expect-here
    pool1 = tf.keras.layers.MaxPooling2D(pool_size=[2, 2], strides=2)(conv1)
    conv2 = tf.keras.layers.Conv2D(filters=32, kernel_size=[5, 5], padding="same", activation="relu")(pool1)
    pool2 = tf.keras.layers.MaxPooling2D(pool_size=[5, 5], strides=5)(conv2)
    flat = tf.keras.layers.Flatten()(pool2)
    dense = tf.keras.layers.Dense(128, activation="relu")(flat)
    return tf.keras.layers.Dense(num_of_classes)(dense)


def load_images(n=8):
    return np.zeros((n, image_x * image_y), dtype=np.uint8)


if __name__ == "__main__":
    train_images = load_images()  # expect-here
    logits = cnn_model_fn({"x": train_images})  # expect-here
    print(logits.shape)
