"""Full-batch training on a Dask cluster with gradjit.distributed: logistic regression or a
small MLP on a dask array of synthetic rows, by gradient descent or by L-BFGS (scipy).

    python examples/distributed_training.py --rows 10_000_000 --workers 2
    python examples/distributed_training.py --model mlp --optimizer lbfgs --scheduler HOST:8786

Each step computes the loss and its gradient over every row: the workers run the compiled
per-chunk gradient on the chunks they hold, and the client receives one reduced gradient."""
from __future__ import annotations

import argparse
import time
from contextlib import ExitStack

import numpy as np

import gradjit.distributed as gd


def logistic(params, x, y):
    logits = x @ params["w"] + params["b"]
    return np.mean(np.logaddexp(0.0, logits) - y * logits)


def mlp(params, x, y):
    hidden = np.tanh(x @ params["w1"] + params["b1"])
    logits = hidden @ params["w2"] + params["b2"]
    return np.mean(np.logaddexp(0.0, logits) - y * logits)


def initial_params(model, features, hidden=32, seed=0):
    rng = np.random.default_rng(seed)
    if model == "logistic":
        return {"w": np.zeros(features), "b": np.float64(0.0)}
    return {"w1": rng.normal(size=(features, hidden)) / np.sqrt(features),
            "b1": np.zeros(hidden), "w2": rng.normal(size=hidden) / np.sqrt(hidden),
            "b2": np.float64(0.0)}


def synthetic_data(rows, features, chunk_rows, seed=0):
    """f32 rows and 0/1 labels of a noisy linear rule, built lazily chunk by chunk (on the
    workers when a cluster runs them), then kept in memory there."""
    import dask.array as da
    rng = da.random.default_rng(seed)
    x = rng.standard_normal((rows, features), chunks=(chunk_rows, features), dtype=np.float32)
    truth = np.random.default_rng(seed + 1).normal(size=features).astype(np.float32)
    noise = rng.standard_normal(rows, chunks=chunk_rows, dtype=np.float32)
    y = (x @ truth + 0.5 * noise > 0).astype(np.float32)
    return x.persist(), y.persist()


def gradient_descent(step, params, data, iterations, rate):
    for i in range(iterations):
        loss, grads = step(params, *data)
        params = {k: params[k] - rate * grads[k] for k in params}
        print(f"step {i:3d}  loss {loss:.6f}")
    return params


def lbfgs(step, params, data, iterations):
    from scipy.optimize import minimize
    keys = list(params)
    shapes = [np.shape(params[k]) for k in keys]
    sizes = [int(np.prod(s)) for s in shapes]

    def unflatten(theta):
        parts = np.split(theta, np.cumsum(sizes)[:-1])
        return {k: p.reshape(s) if s else np.float64(p[0]) for k, p, s in zip(keys, parts, shapes)}

    def fun(theta):
        loss, grads = step(unflatten(theta), *data)
        print(f"evaluation  loss {loss:.6f}")
        return float(loss), np.concatenate([np.ravel(grads[k]) for k in keys])

    theta = np.concatenate([np.ravel(params[k]) for k in keys])
    result = minimize(fun, theta, jac=True, method="L-BFGS-B", options={"maxiter": iterations})
    return unflatten(result.x)


def accuracy(model, params, x, y) -> float:
    """The share of rows whose predicted label is right, computed by Dask chunk by chunk."""
    logits = x.map_blocks(_logits, model, params, drop_axis=1, dtype=np.float64)
    return float(((logits > 0) == (y > 0.5)).mean().compute())


def _logits(block, model, params):
    if model == "logistic":
        return block @ params["w"] + params["b"]
    return np.tanh(block @ params["w1"] + params["b1"]) @ params["w2"] + params["b2"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["logistic", "mlp"], default="logistic")
    parser.add_argument("--optimizer", choices=["gd", "lbfgs"], default="gd")
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=200_000)
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--chunk-rows", type=int, default=500_000)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--rate", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2,
                        help="processes of a local cluster (0: Dask's local scheduler)")
    parser.add_argument("--scheduler", help="address of a running `dask scheduler`")
    args = parser.parse_args(argv)

    with ExitStack() as stack:
        if args.scheduler or args.workers:
            from distributed import Client, LocalCluster
            cluster = args.scheduler or stack.enter_context(LocalCluster(
                n_workers=args.workers, threads_per_worker=1, dashboard_address=None))
            print(stack.enter_context(Client(cluster)))
        data = synthetic_data(args.rows, args.features, args.chunk_rows)
        fn = logistic if args.model == "logistic" else mlp
        step = gd.value_and_grad(fn, reduce="mean", sharded=(1, 2))
        params = initial_params(args.model, args.features)
        start = time.perf_counter()
        if args.optimizer == "lbfgs":
            params = lbfgs(step, params, data, args.iterations)
        else:
            params = gradient_descent(step, params, data, args.iterations, args.rate)
        seconds = time.perf_counter() - start
        print(f"trained in {seconds:.2f} s; accuracy {accuracy(args.model, params, *data):.4f}")


if __name__ == "__main__":
    main()
