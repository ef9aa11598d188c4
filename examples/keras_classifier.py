"""A Keras 2 (tf.keras) classifier.

Expected: bn-eps-silently-clamped. TensorFlow's fused batch norm raises epsilon=1e-6 to
1.001e-5, so the trained model is not the model this file declares.
"""
import tensorflow as tf
from tensorflow.keras import layers


def build_classifier(num_classes: int) -> tf.keras.Model:
    inputs = tf.keras.Input(shape=(224, 224, 3))
    x = layers.Conv2D(32, 3, strides=2, padding="same")(inputs)
    x = layers.BatchNormalization(epsilon=1e-6)(x)
    x = layers.ReLU()(x)
    x = layers.Conv2D(64, 3, padding="same")(x)
    x = layers.BatchNormalization(epsilon=1.001e-5)(x)  # the Keras applications value: fine
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(num_classes)(x)
    return tf.keras.Model(inputs, outputs)
