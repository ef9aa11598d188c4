# realworld-source: https://github.com/zhengyang-wang/Deeplab-v2--ResNet-101--Tensorflow/issues/44
# realworld-family: dtype
# realworld-error: TypeError: Value passed to parameter 'x' has DataType uint8 not in list of allowed values: float16, float32, float64, int32, int64, complex64, complex128
# realworld-key: allowed values
# realworld-measured: tensorflow-cpu 2.21.0 CPU
# realworld-expect: tf-integer-input
# realworld-why: raw tf.nn.conv2d in a helper; the image batch is uint8 as tf.image.decode_png returns it (made here with tf.zeros(dtype=tf.uint8))
import tensorflow as tf


def conv(x, kernel_size, num_o, stride, name):
    num_x = x.shape[3]
    w = tf.Variable(tf.random.normal([kernel_size, kernel_size, num_x, num_o], stddev=0.01), name=name + '_w')
    return tf.nn.conv2d(x, w, strides=[1, stride, stride, 1], padding='SAME')  # expect-here


def encoder(img):
    out = tf.nn.relu(conv(img, 7, 16, 2, 'conv1'))  # expect-here
    out = tf.nn.max_pool2d(out, 3, 2, 'SAME')
    return conv(out, 3, 32, 1, 'res2a')


if __name__ == "__main__":
    img = tf.zeros([2, 64, 64, 3], dtype=tf.uint8)  # expect-here
    print(encoder(img).shape)  # expect-here
