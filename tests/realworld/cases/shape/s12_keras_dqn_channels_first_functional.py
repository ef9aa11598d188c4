# realworld-source: https://github.com/itaicaspi/keras-dqn-doom/issues/4
# realworld-family: shape
# realworld-error: ValueError: Negative dimension size caused by subtracting 3 from 1 for 'conv2d_2/convolution' (op: 'Conv2D') with input shapes: [?,1,29,16], [3,3,16,32].
# realworld-key: Computed output size would be zero or negative
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: Keras functional API; channels-first state shape read as channels-last; shape from a tuple of module constants
from tensorflow.keras.layers import Conv2D, Dense, Flatten, Input
from tensorflow.keras.models import Model

IMG_CHANNELS = 4  # stacked frames
IMG_ROWS, IMG_COLS = 64, 64


def build_q_network(action_size):
    state = Input(shape=(IMG_CHANNELS, IMG_ROWS, IMG_COLS))
    x = Conv2D(32, (8, 8), strides=(4, 4), activation='relu')(state)  # expect-here
    x = Conv2D(64, (4, 4), strides=(2, 2), activation='relu')(x)
    x = Conv2D(64, (3, 3), activation='relu')(x)
    x = Flatten()(x)
    x = Dense(512, activation='relu')(x)
    q = Dense(action_size, activation='linear')(x)
    return Model(inputs=state, outputs=q)


if __name__ == "__main__":
    model = build_q_network(3)
    model.summary()
