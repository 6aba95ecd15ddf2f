"""mnist_hogwild's shape: a model shared with spawned training processes, then saved and
tested in the parent; the run ends as quietly as PyTorch's (nothing on stderr)."""
import os
import subprocess
import sys
import textwrap

import gradjit

_PROGRAM = textwrap.dedent("""
    import sys
    torch = __import__(sys.argv[1])
    mp = torch.multiprocessing

    def train(model):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            model(torch.ones(1, 2)).sum().backward()
            opt.step()

    if __name__ == "__main__":
        mp.set_start_method("spawn", force=True)
        torch.manual_seed(1)
        model = torch.nn.Linear(2, 1)
        model.share_memory()
        procs = [mp.Process(target=train, args=(model,)) for _ in range(int(sys.argv[2]))]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        print(model.bias.detach().numpy().round(4).tolist())
""")


def test_spawned_hogwild_run_ends_quietly_as_torchs(tmp_path):
    script = tmp_path / "hogwild.py"
    script.write_text(_PROGRAM)
    # the child imports this checkout's gradjit, as the test does
    root = os.path.dirname(os.path.dirname(os.path.abspath(gradjit.__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    runs = [subprocess.run([sys.executable, str(script), lib, "1"],
                           capture_output=True, text=True, timeout=240, env=env)
            for lib in ("torch", "gradjit")]
    assert [r.stderr for r in runs] == ["", ""], runs[1].stderr
    assert runs[0].stdout == runs[1].stdout
