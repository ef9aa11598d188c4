"""Zero-size batches through TensorFlow's cuDNN-backed ops on a GPU (KB entry
tensorflow/zero-size-batch-into-cudnn-op, whose GPU behaviour was unmeasured).

Each case runs in its own subprocess because the 2017 reports show a process abort
(a CHECK failure in the stream executor), not a Python exception. One JSON line per case:
{case, outcome: returned|raised|aborted, shape|error|returncode, tf, gpu}.
Usage: python3 tf_zero_batch.py > results.jsonl
"""
import json
import subprocess
import sys

CASES = {
    "conv2d": "tf.nn.conv2d(tf.zeros([0, 8, 8, 3]), tf.ones([3, 3, 3, 4]), 1, 'VALID')",
    "conv2d_nchw": "tf.nn.conv2d(tf.zeros([0, 3, 8, 8]), tf.ones([3, 3, 3, 4]), 1, 'VALID', data_format='NCHW')",
    "conv2d_transpose": "tf.nn.conv2d_transpose(tf.zeros([0, 4, 4, 4]), tf.ones([3, 3, 3, 4]), [0, 6, 6, 3], 1, 'VALID')",
    "conv2d_backprop": "conv_grad()",
    "fused_batch_norm_train": "tf.compat.v1.nn.fused_batch_norm(tf.zeros([0, 8, 8, 3]), tf.ones([3]), tf.zeros([3]), is_training=True)[0]",
    "fused_batch_norm_nchw": "tf.compat.v1.nn.fused_batch_norm(tf.zeros([0, 3, 8, 8]), tf.ones([3]), tf.zeros([3]), is_training=True, data_format='NCHW')[0]",
    "keras_conv_bn": "keras_model()",
    "lstm_cudnn": "tf.keras.layers.LSTM(4)(tf.zeros([0, 5, 3]))",
}

PRELUDE = """
import tensorflow as tf
def conv_grad():
    x = tf.zeros([0, 8, 8, 3]); w = tf.Variable(tf.ones([3, 3, 3, 4]))
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.nn.conv2d(x, w, 1, 'VALID'))
    return t.gradient(y, w)
def keras_model():
    m = tf.keras.Sequential([tf.keras.layers.Conv2D(4, 3), tf.keras.layers.BatchNormalization()])
    return m(tf.zeros([0, 8, 8, 3]), training=True)
with tf.device('/GPU:0'):
    r = {expr}
print('SHAPE', list(r.shape), r.device)
"""


def main():
    import tensorflow as tf
    gpus = [d.name for d in tf.config.list_physical_devices("GPU")]
    build = tf.sysconfig.get_build_info()
    meta = {"tf": tf.__version__, "gpus": gpus, "cudnn": build.get("cudnn_version"),
            "cuda": build.get("cuda_version")}
    print(json.dumps({"meta": meta}), flush=True)
    for name, expr in CASES.items():
        proc = subprocess.run([sys.executable, "-c", PRELUDE.replace("{expr}", expr)],
                              capture_output=True, text=True, timeout=300)
        row = {"case": name, **meta}
        shape = [l for l in proc.stdout.splitlines() if l.startswith("SHAPE")]
        if proc.returncode == 0 and shape:
            row.update(outcome="returned", shape=shape[0][6:])
        elif proc.returncode < 0 or proc.returncode == 134:
            row.update(outcome="aborted", returncode=proc.returncode, error=proc.stderr[-600:])
        else:
            row.update(outcome="raised", returncode=proc.returncode, error=proc.stderr[-600:])
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
