# realworld-source: https://github.com/chasingbob/squeezenet-keras/issues/5
# realworld-family: shape
# realworld-error: ValueError: Negative dimension size caused by subtracting 3 from 2 for 'MaxPool' (op: 'MaxPool') with input shapes: [?,2,112,96].
# realworld-key: Computed output size would be zero or negative
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: functional model whose blocks come from a helper function (fire_module); input side a module constant
from tensorflow.keras import layers
from tensorflow.keras.models import Model

INPUT_SIZE = 16


def fire_module(x, fire_id, squeeze=16, expand=64):
    s_id = 'fire' + str(fire_id) + '_'
    x = layers.Conv2D(squeeze, (1, 1), padding='valid', name=s_id + 'squeeze1x1')(x)
    x = layers.Activation('relu')(x)
    left = layers.Conv2D(expand, (1, 1), padding='valid', name=s_id + 'expand1x1')(x)
    left = layers.Activation('relu')(left)
    right = layers.Conv2D(expand, (3, 3), padding='same', name=s_id + 'expand3x3')(x)
    right = layers.Activation('relu')(right)
    return layers.concatenate([left, right], axis=3, name=s_id + 'concat')


def SqueezeNet(classes=10):
    img_input = layers.Input(shape=(INPUT_SIZE, INPUT_SIZE, 3))
    x = layers.Conv2D(64, (3, 3), strides=(2, 2), padding='valid', name='conv1')(img_input)
    x = layers.Activation('relu')(x)
    x = layers.MaxPooling2D(pool_size=(3, 3), strides=(2, 2), name='pool1')(x)
    x = fire_module(x, fire_id=2, squeeze=16, expand=64)
    x = fire_module(x, fire_id=3, squeeze=16, expand=64)
    x = layers.MaxPooling2D(pool_size=(3, 3), strides=(2, 2), name='pool3')(x)
    x = fire_module(x, fire_id=4, squeeze=32, expand=128)
    x = fire_module(x, fire_id=5, squeeze=32, expand=128)
    x = layers.MaxPooling2D(pool_size=(3, 3), strides=(2, 2), name='pool5')(x)  # expect-here
    x = fire_module(x, fire_id=6, squeeze=48, expand=192)
    x = layers.Conv2D(classes, (1, 1), padding='valid', name='conv10')(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Activation('softmax')(x)
    return Model(img_input, x, name='squeezenet')


if __name__ == "__main__":
    SqueezeNet().summary()
