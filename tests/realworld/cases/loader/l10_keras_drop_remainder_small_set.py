# realworld-source: https://github.com/tensorflow/tensorflow/issues/48708
# realworld-family: loader
# realworld-error: model.fit() should tell you if a batch is not big enough to train with (fit on fewer samples than one batch)
# realworld-key: KeyError: 'loss'
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU (fit runs zero steps on the empty dataset and records no loss; reading it raises KeyError: 'loss')
# realworld-expect: loader-drop-last-no-batches
# realworld-why: tf.data pipeline with batch(..., drop_remainder=True) in a helper; sample count from the array length
import numpy as np
import tensorflow as tf

BATCH_SIZE = 64


def make_dataset(x, y, batch_size=BATCH_SIZE):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x))
    return ds.batch(batch_size, drop_remainder=True)  # expect-here


if __name__ == "__main__":
    x = np.random.rand(50, 8).astype(np.float32)
    y = np.random.rand(50, 1).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, activation='relu'),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer='adam', loss='mse')
    history = model.fit(make_dataset(x, y), epochs=2, verbose=0)
    print("final loss", history.history['loss'][-1])
