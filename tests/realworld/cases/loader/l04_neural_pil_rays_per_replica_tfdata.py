# realworld-source: https://github.com/cgtuebingen/Neural-PIL/issues/4
# realworld-family: loader
# realworld-error: InvalidArgumentError: Batch size must be greater than zero. [Op:BatchDatasetV2]
# realworld-key: Batch size must be greater than zero
# realworld-measured: tensorflow-cpu 2.21.0 CPU
# realworld-expect: loader-batch-size-divides-to-zero
# realworld-why: tf.data .batch() of a chunk size computed by integer division in a method, from class attributes
import numpy as np
import tensorflow as tf


class NeuralPILRenderer:
    batch_size = 2  # rays per step for the test render
    num_replicas = 4

    def distributed_call(self, ray_origins, ray_directions):
        chunk = self.batch_size // self.num_replicas  # expect-here
        dp = tf.data.Dataset.from_tensor_slices((ray_origins, ray_directions)).batch(chunk)  # expect-here
        return [o.shape for o, _ in dp]


if __name__ == "__main__":
    rays_o = np.zeros((16, 3), np.float32)
    rays_d = np.ones((16, 3), np.float32)
    print(NeuralPILRenderer().distributed_call(rays_o, rays_d))
