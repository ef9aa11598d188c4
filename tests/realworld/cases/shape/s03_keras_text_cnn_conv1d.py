# realworld-source: https://github.com/keras-team/keras/issues/10128
# realworld-family: shape
# realworld-error: ValueError: Negative dimension size caused by subtracting 3 from 2 for 'conv1d_3/convolution/Conv2D' (op: 'Conv2D') with input shapes: [?,1,2,128], [1,3,128,128]
# realworld-key: Computed output size would be zero or negative
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: Conv1D/MaxPooling1D stack after an Embedding; sequence length is a module constant
import numpy as np
from tensorflow.keras.layers import Conv1D, Dense, Embedding, GlobalMaxPooling1D, Input, MaxPooling1D, SpatialDropout1D
from tensorflow.keras.models import Sequential

MAX_SEQUENCE_LENGTH = 20
MAX_NB_WORDS = 2000
EMBEDDING_DIM = 50


def text_cnn(num_labels):
    model = Sequential()
    model.add(Input(shape=(MAX_SEQUENCE_LENGTH,)))
    model.add(Embedding(MAX_NB_WORDS + 1, EMBEDDING_DIM, trainable=True))
    model.add(SpatialDropout1D(0.2))
    model.add(Conv1D(128, 3, activation='relu'))
    model.add(MaxPooling1D(3))
    model.add(Conv1D(128, 3, activation='relu'))
    model.add(MaxPooling1D(3))
    model.add(Conv1D(128, 3, activation='relu'))  # expect-here
    model.add(GlobalMaxPooling1D())
    model.add(Dense(num_labels, activation='softmax'))
    return model


if __name__ == "__main__":
    model = text_cnn(4)
    model.compile(loss='categorical_crossentropy', optimizer='rmsprop')
    print(model.predict(np.zeros((2, MAX_SEQUENCE_LENGTH), dtype='int32'), verbose=0).shape)
