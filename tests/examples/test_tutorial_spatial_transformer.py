"""The spatial transformer networks tutorial (affine_grid + grid_sample in front of a small
MNIST classifier) trains to PyTorch's losses; its identity-initialized localization net puts
every sampling point on a pixel centre, where grid_sample's gradient depends on the last ulp
of affine_grid's coordinates."""
import numpy as np
import pytest
import torch

import gradjit

from tests.examples.tutorial_runner import assert_same_output

STN = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True)
        )
        self.fc_loc = nn.Sequential(
            nn.Linear(10 * 3 * 3, 32),
            nn.ReLU(True),
            nn.Linear(32, 3 * 2)
        )
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size())
        x = F.grid_sample(x, grid)
        return x

    def forward(self, x):
        x = self.stn(x)
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)
model = Net()
optimizer = optim.SGD(model.parameters(), lr=0.01)
data, target = torch.rand(8, 1, 28, 28), torch.randint(10, (8,))
model.train()
for batch_idx in range(3):
    optimizer.zero_grad()
    output = model(data)
    loss = F.nll_loss(output, target)
    loss.backward()
    optimizer.step()
    print('Train Epoch: 1 [{}]\\tLoss: {:.6f}'.format(batch_idx, loss.item()))
    print(model.fc_loc[2].bias.grad)
with torch.no_grad():
    model.eval()
    output = model(data)
    test_loss = F.nll_loss(output, target, size_average=False).item()
    pred = output.max(1, keepdim=True)[1]
    correct = pred.eq(target.view_as(pred)).sum().item()
    print('Test set: Average loss: {:.4f}, Accuracy: {}/{}'.format(test_loss / 8, correct, 8))
    transformed = model.stn(data[:4]).cpu()
    print(transformed.shape, transformed[0, 0, 10, 10:14])
'''


def test_spatial_transformer_tutorial_trains_as_torch():
    assert_same_output(STN)


@pytest.mark.parametrize("size", [(2, 1, 28, 28), (1, 3, 4, 5), (1, 1, 7, 9), (1, 1, 2, 3, 4)])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_identity_affine_grid_is_torchs_to_the_bit(size, align_corners, dtype):
    n = len(size) - 2
    theta = np.tile(np.eye(n, n + 1), (size[0], 1, 1))
    got, want = [t.nn.functional.affine_grid(t.tensor(theta, dtype=getattr(t, dtype)), size,
                                             align_corners=align_corners).numpy()
                 for t in (gradjit, torch)]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_gradient_on_pixel_centres_is_torchs(align_corners):
    x = np.random.default_rng(0).random((2, 1, 7, 9), dtype=np.float32)
    weights = (np.arange(2 * 7 * 9) % 7 - 3).astype(np.float32).reshape(2, 1, 7, 9)
    grads = []
    for t in (gradjit, torch):
        theta = t.tensor(np.tile(np.eye(2, 3, dtype=np.float32), (2, 1, 1)),
                         requires_grad=True)
        grid = t.nn.functional.affine_grid(theta, x.shape, align_corners=align_corners)
        out = t.nn.functional.grid_sample(t.tensor(x), grid, align_corners=align_corners)
        (out * t.tensor(weights)).sum().backward()
        grads.append(theta.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-5)
