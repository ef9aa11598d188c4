"""A TensorFlow input pipeline with the zero-batch mistakes of field reports 003 and 004.

cudnnlint reports:
- line 20: `tf.data ... .batch(GLOBAL_BATCH // NUM_REPLICAS)` is 16 // 32 = 0, and tf.data refuses a
  batch size of 0 when the pipeline is built (loader-batch-size-divides-to-zero);
- line 23: a validation set of 10 images batched by 16 with drop_remainder=True has no batch at all
  (loader-drop-last-no-batches);
- line 30: a warm-up call on a zero-size batch into Conv2D: cuDNN rejects a tensor with n = 0 (TF 1.3/1.4
  aborted on a GPU); gpu_check's descriptor tier confirms CUDNN_STATUS_BAD_PARAM (zero-size-batch-into-layer).
"""
import numpy as np
import tensorflow as tf

GLOBAL_BATCH = 16
NUM_REPLICAS = 32  # one replica per accelerator of the pod slice


def pipelines(images, labels):
    train = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(1024)
    train = train.batch(GLOBAL_BATCH // NUM_REPLICAS)
    val_images = np.zeros((10, 32, 32, 3), dtype=np.float32)
    val = tf.data.Dataset.from_tensor_slices(val_images).map(lambda x: x / 255.0)
    val = val.batch(16, drop_remainder=True)
    return train, val


def warm_up():
    conv = tf.keras.layers.Conv2D(filters=32, kernel_size=(3, 3), padding="same")
    empty = tf.constant(np.zeros((0, 32, 32, 3), dtype=np.float32))
    return conv(empty)
