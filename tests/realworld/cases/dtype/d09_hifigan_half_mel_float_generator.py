# realworld-source: https://github.com/jik876/hifi-gan/issues/44
# realworld-family: dtype
# realworld-error: RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same
# realworld-key: Input type (c10::Half) and bias type (float) should be the same
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: torch-conv-dtype-mismatch
# realworld-why: mel converted with .half() by a flag, generator left in float32; upsampling ConvTranspose1d built in a loop
import torch
import torch.nn as nn
import torch.nn.functional as F

FP16 = True


class Generator(nn.Module):
    def __init__(self, num_mels=80, upsample_rates=(8, 8), upsample_initial_channel=64):
        super(Generator, self).__init__()
        self.conv_pre = nn.Conv1d(num_mels, upsample_initial_channel, 7, 1, padding=3)  # expect-here
        self.ups = nn.ModuleList()
        ch = upsample_initial_channel
        for u in upsample_rates:
            self.ups.append(nn.ConvTranspose1d(ch, ch // 2, u * 2, u, padding=u // 2))
            ch //= 2
        self.conv_post = nn.Conv1d(ch, 1, 7, 1, padding=3)

    def forward(self, x):
        x = self.conv_pre(x)  # expect-here
        for up in self.ups:
            x = up(F.leaky_relu(x, 0.1))
        return torch.tanh(self.conv_post(F.leaky_relu(x)))


if __name__ == "__main__":
    generator = Generator()
    mel = torch.randn(1, 80, 32)
    if FP16:
        mel = mel.half()  # expect-here
    y_g_hat = generator(mel)  # expect-here
    print(y_g_hat.shape)
