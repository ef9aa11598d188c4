# realworld-source: https://github.com/lightonai/pylate/issues/239
# realworld-family: batchnorm
# realworld-error: Distillation returns NaN under fp16: the 1e-8 normalisation guard is not representable in float16
# realworld-key: nan
# realworld-measured: torch 2.11.0 CPU (float16 tensors on the CPU: the loss prints nan)
# realworld-expect: eps-vanishes-in-half
# realworld-why: epsilon a local constant in a loss module; scores converted with .half()
import torch
import torch.nn as nn
import torch.nn.functional as F


class Distillation(nn.Module):
    def __init__(self, normalize_scores=True):
        super().__init__()
        self.normalize_scores = normalize_scores

    def normalize(self, scores):
        min_scores = scores.min(dim=-1, keepdim=True).values
        max_scores = scores.max(dim=-1, keepdim=True).values
        # Avoid division by zero by adding a small epsilon
        epsilon = 1e-8  # expect-here
        return (scores - min_scores) / (max_scores - min_scores + epsilon)  # expect-here

    def forward(self, student_scores, teacher_scores):
        if self.normalize_scores:
            student_scores = self.normalize(student_scores)
            teacher_scores = self.normalize(teacher_scores)
        return F.kl_div(F.log_softmax(student_scores.float(), -1), F.softmax(teacher_scores.float(), -1),
                        reduction="batchmean")


if __name__ == "__main__":
    student = torch.randn(1, 4).half()
    teacher = torch.full((1, 4), 3.0).half()  # the teacher scores the four documents identically
    print("loss:", Distillation()(student, teacher).item())
