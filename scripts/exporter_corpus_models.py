"""The models of scripts/exporter_corpus.py, one generator per exporter family. Imported only
inside `.venv-exporters/` (torch, scikit-learn, skl2onnx, onnxscript).

Each family yields `(name, made)`: `made` is `(model, data_sets, exporter label)` with data sets
`(inputs, outputs)` in graph order, outputs being the framework's own, or a string saying why
the model could not be exported."""

# ruff: noqa: UP006, UP035, UP045 - TorchScript reads typing.List and Optional annotations
from __future__ import annotations

import io
import re
import warnings
from typing import List, Optional

import numpy as np
import onnx

SEED = 20261204
DATA_SETS = 3


def match_outputs(model, produced) -> list:
    """The framework's outputs laid on the graph's outputs in order: a tuple is several outputs
    (opened wherever it is), a list is one sequence output, or several tensor outputs."""
    queue = [produced]
    matched = []
    for info in model.graph.output:
        tensor = info.type.WhichOneof("value") == "tensor_type"
        while queue and (isinstance(queue[0], tuple) or tensor and isinstance(queue[0], list)):
            queue[:1] = list(queue[0])
        if not queue:
            raise ValueError("the framework gave fewer outputs than the graph has")
        matched.append(queue.pop(0))
    if queue:
        raise ValueError(f"{len(queue)} framework output(s) left over after the graph's outputs")
    return matched


def rng(name: str) -> np.random.Generator:
    return np.random.default_rng([SEED, sum(map(ord, name))])


def export_family(family: str):
    warnings.filterwarnings("ignore")
    yield from {"torchscript": torchscript_models, "dynamo": dynamo_models,
                "skl2onnx": skl2onnx_models, "onnxscript": onnxscript_models,
                "tf2onnx": tf2onnx_models}[family]()


def _guard(name: str, make, *args):
    try:
        return name, make(*args)
    except Exception as error:  # noqa: BLE001 - an exporter's failure is a row of the report
        lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", str(error)).splitlines()
                 if line.strip()] or [""]
        said = lines[-1] if lines[0] == "in user code:" else lines[0]  # tensorflow's traces
        return name, f"export failed: {type(error).__name__}: {said[:200]}"


# --- torch ---------------------------------------------------------------------------------------

def _torch_modules():
    """(name, module, input shapes): scripted modules whose graphs hold lists and optionals."""
    import torch
    from torch import Tensor, nn

    class Split(nn.Module):
        def forward(self, x: Tensor) -> List[Tensor]:
            return torch.split(x, 2, dim=0)

    class SplitSizes(nn.Module):
        def forward(self, x: Tensor) -> List[Tensor]:
            return torch.split(x, [1, 3], dim=1)

    class Chunk(nn.Module):
        def forward(self, x: Tensor) -> List[Tensor]:
            return torch.chunk(x, 2, dim=1)

    class Unbind(nn.Module):
        def forward(self, x: Tensor) -> List[Tensor]:
            return torch.unbind(x, 0)

    class SplitCat(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            parts = torch.split(x, 1, dim=0)
            return torch.cat(parts, dim=1)

    class UnbindStack(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            return torch.stack(torch.unbind(x, 0), dim=1)

    class ListLen(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            parts = torch.split(x, 1, dim=0)
            return torch.tensor(len(parts))

    class ListLast(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            parts = torch.split(x, 1, dim=1)
            return parts[-1]

    class LoopAppend(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            out: List[Tensor] = []
            for i in range(x.size(0)):
                out.append(x[i] * 2.0)
            return torch.stack(out, 0)

    class LoopAppendList(nn.Module):
        def forward(self, x: Tensor) -> List[Tensor]:
            out: List[Tensor] = []
            for i in range(x.size(0)):
                out.append(x[i] + 1.0)
            return out

    class LoopCat(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            out: List[Tensor] = []
            for i in range(3):
                out.append(x * float(i))
            return torch.cat(out, 0)

    class ComprehensionSum(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            parts = [part * 2.0 for part in torch.unbind(x, 0)]
            total = torch.zeros_like(parts[0])
            for part in parts:
                total = total + part
            return total

    class ListInsertPop(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            parts = torch.split(x, 1, dim=0)
            parts = list(parts)
            parts.insert(0, x[-1:])
            parts.pop()
            return torch.cat(parts, 0)

    class IfList(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            if bool(x.sum() > 0):
                parts = torch.split(x, 1, dim=0)
            else:
                parts = torch.split(x, 2, dim=0)
            return torch.stack([p.sum() for p in parts])

    class WhileList(nn.Module):
        def forward(self, x: Tensor) -> List[Tensor]:
            out: List[Tensor] = [x]
            y = x
            while bool(y.abs().sum() > 0.5) and len(out) < 5:
                y = y * 0.5
                out.append(y)
            return out

    class OptionalArg(nn.Module):
        def forward(self, x: Tensor, y: Optional[Tensor] = None) -> Tensor:
            if y is None:
                return x * 2.0
            return x + y

    class OptionalLocal(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            best: Optional[Tensor] = None
            for part in torch.unbind(x, 0):
                if best is None:
                    best = part
                else:
                    best = torch.maximum(best, part)
            assert best is not None
            return best

    class ListIndexLoop(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            parts = torch.split(x, 1, dim=1)
            acc = parts[0]
            for i in range(1, len(parts)):
                acc = acc * parts[i]
            return acc

    class SplitReverse(nn.Module):
        def forward(self, x: Tensor) -> List[Tensor]:
            parts = torch.split(x, 1, dim=0)
            out: List[Tensor] = []
            for i in range(len(parts)):
                out.append(parts[len(parts) - 1 - i])
            return out

    class ListOfLists(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            rows = torch.unbind(x, 0)
            lengths: List[Tensor] = []
            for row in rows:
                lengths.append(torch.stack(torch.unbind(row, 0)).sum())
            return torch.stack(lengths)

    class IntList(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            shape = x.shape
            return torch.tensor([shape[0] * shape[1], len(shape)])

    return [("split", Split(), [(4, 3)]), ("split_sizes", SplitSizes(), [(2, 4)]),
            ("chunk", Chunk(), [(3, 4)]), ("unbind", Unbind(), [(3, 2)]),
            ("split_cat", SplitCat(), [(3, 2)]), ("unbind_stack", UnbindStack(), [(3, 4)]),
            ("list_len", ListLen(), [(5, 2)]), ("list_last", ListLast(), [(2, 3)]),
            ("loop_append", LoopAppend(), [(3, 2)]),
            ("loop_append_list", LoopAppendList(), [(3, 2)]),
            ("loop_cat", LoopCat(), [(2, 2)]), ("comprehension_sum", ComprehensionSum(), [(4, 3)]),
            ("list_insert_pop", ListInsertPop(), [(3, 2)]), ("if_list", IfList(), [(4, 2)]),
            ("while_list", WhileList(), [(2, 2)]), ("optional_arg", OptionalArg(), [(2, 3)] * 2),
            ("optional_arg_none", OptionalArg(), [(2, 3)]),
            ("optional_local", OptionalLocal(), [(3, 4)]),
            ("list_index_loop", ListIndexLoop(), [(2, 3)]),
            ("split_reverse", SplitReverse(), [(3, 2)]),
            ("list_of_lists", ListOfLists(), [(3, 4)]), ("int_list", IntList(), [(2, 5)])]


def _torch_run(module, arrays):
    """The module's return value: a tuple for several, a TorchScript list as one value."""
    import torch
    with torch.no_grad():
        produced = module(*[torch.from_numpy(array) for array in arrays])
    return _numpy(produced)


def _numpy(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy(item) for item in value)
    return value.detach().numpy()


def _torch_export(name: str, module, shapes, dynamo: bool):
    import torch
    generator = rng(name)
    data = [[generator.standard_normal(shape).astype(np.float32) for shape in shapes]
            for _ in range(DATA_SETS)]
    names = [f"x{j}" for j in range(len(shapes))]
    runs = module
    if dynamo:
        program = torch.onnx.export(module, tuple(torch.from_numpy(a) for a in data[0]),
                                    dynamo=True, input_names=names, verbose=False)
        model = program.model_proto
    else:
        scripted = runs = torch.jit.script(module)
        buffer = io.BytesIO()
        torch.onnx.export(scripted, tuple(torch.from_numpy(a) for a in data[0]), buffer,
                          dynamo=False, input_names=names, opset_version=17)
        model = onnx.load_from_string(buffer.getvalue())
    data_sets = [(arrays, match_outputs(model, _torch_run(runs, arrays))) for arrays in data]
    label = f"torch {torch.__version__} {'dynamo' if dynamo else 'TorchScript'}"
    return model, data_sets, label


def torchscript_models():
    for name, module, shapes in _torch_modules():
        yield _guard(f"torchscript_{name}", _torch_export, name, module, shapes, False)


def dynamo_models():
    for name, module, shapes in _torch_modules():
        yield _guard(f"dynamo_{name}", _torch_export, name, module, shapes, True)


# --- scikit-learn --------------------------------------------------------------------------------

def _classifiers():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.tree import DecisionTreeClassifier
    return [("logreg", lambda: LogisticRegression(max_iter=500), 3),
            ("logreg_binary", lambda: LogisticRegression(max_iter=500), 2),
            ("tree", lambda: DecisionTreeClassifier(max_depth=3, random_state=0), 3),
            ("forest", lambda: RandomForestClassifier(n_estimators=3, max_depth=3,
                                                      random_state=0), 3),
            ("knn", lambda: KNeighborsClassifier(n_neighbors=3), 3),
            ("gaussian_nb", GaussianNB, 3),
            ("mlp", lambda: MLPClassifier(hidden_layer_sizes=(5,), max_iter=300,
                                          random_state=0), 3),
            ("lda", LinearDiscriminantAnalysis, 3)]


def _sk_data(name: str, classes: int, string_labels: bool = False):
    generator = rng(name)
    x = generator.standard_normal((60, 4)).astype(np.float32)
    y = (np.argmax(x[:, :classes], axis=1)).astype(np.int64)
    if string_labels:
        y = np.array(["abc"[int(v)] for v in y])
    return x, y


def _sk_outputs(classifier, x, zipmap: bool):
    labels = classifier.predict(x)
    probabilities = classifier.predict_proba(x).astype(np.float32)
    if not zipmap:
        return [labels, probabilities]
    keys = [k.item() if hasattr(k, "item") else k for k in classifier.classes_]
    return [labels, [{key: np.float32(p) for key, p in zip(keys, row, strict=True)}
                     for row in probabilities]]


def _sk_model(name: str, make, classes: int, zipmap: bool, string_labels: bool = False):
    import skl2onnx
    from skl2onnx.common.data_types import FloatTensorType
    x, y = _sk_data(name, classes, string_labels)
    classifier = make().fit(x, y)
    options = None if zipmap else {id(classifier): {"zipmap": False}}
    model = skl2onnx.to_onnx(classifier, initial_types=[("X", FloatTensorType([None, 4]))],
                             options=options, target_opset={"": 17, "ai.onnx.ml": 3})
    data_sets = []
    for k in range(DATA_SETS):
        rows = x[k * 3:k * 3 + 3]
        data_sets.append(([rows], _sk_outputs(classifier, rows, zipmap)))
    return model, data_sets, f"skl2onnx {skl2onnx.__version__} (scikit-learn {_sk_version()})"


def _sk_version() -> str:
    import sklearn
    return sklearn.__version__


def _dict_vectorizer():
    import skl2onnx
    from skl2onnx.common.data_types import DictionaryType, FloatTensorType, StringTensorType
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    generator = rng("dict_vectorizer")
    keys = ["a", "b", "c", "d"]
    rows = [{key: float(generator.standard_normal()) for key in keys if generator.random() < 0.8}
            for _ in range(40)]
    y = np.array([int(row.get("a", 0) > row.get("b", 0)) for row in rows])
    pipeline = make_pipeline(DictVectorizer(sparse=False), LogisticRegression()).fit(rows, y)
    model = skl2onnx.to_onnx(pipeline, initial_types=[
        ("X", DictionaryType(StringTensorType([]), FloatTensorType([])))],
        target_opset={"": 17, "ai.onnx.ml": 3})
    data_sets = []
    for k in range(DATA_SETS):
        row = {key: np.float32(value) for key, value in rows[k].items()}
        labels = pipeline.predict([rows[k]])
        probabilities = pipeline.predict_proba([rows[k]]).astype(np.float32)
        zipped = [{int(c): np.float32(p)
                   for c, p in zip(pipeline.classes_, line, strict=True)}
                  for line in probabilities]
        data_sets.append(([row], [labels, zipped]))
    return model, data_sets, f"skl2onnx {skl2onnx.__version__} (scikit-learn {_sk_version()})"


def skl2onnx_models():
    for name, make, classes in _classifiers():
        yield _guard(f"skl2onnx_{name}", _sk_model, name, make, classes, True)
        yield _guard(f"skl2onnx_{name}_nozipmap", _sk_model, name, make, classes, False)
    from sklearn.linear_model import LogisticRegression
    yield _guard("skl2onnx_logreg_string_labels", lambda: _sk_model(
        "logreg_string_labels", lambda: LogisticRegression(max_iter=500), 3, True, True))
    yield _guard("skl2onnx_dict_vectorizer", _dict_vectorizer)


# --- onnxscript ----------------------------------------------------------------------------------

def _onnxscript_inputs(generator, specs, k: int):
    arrays = []
    for kind, shape in specs:
        if kind == "f":
            arrays.append(generator.standard_normal(shape).astype(np.float32))
        elif kind == "sizes":
            arrays.append(np.array([[1, 3], [2, 2], [3, 1]][k], dtype=np.int64))
        elif kind == "n":
            arrays.append(np.array(k + 1, dtype=np.int64))
        else:
            arrays.append(np.array(k % 2 == 0))
    return arrays


def _onnxscript_model(name: str, function, specs):
    import onnxscript
    model = function.to_model_proto()
    generator = rng(name)
    data_sets = []
    for k in range(DATA_SETS):
        arrays = _onnxscript_inputs(generator, specs, k)
        produced = function(*arrays)
        produced = list(produced) if isinstance(produced, tuple) else [produced]
        data_sets.append((arrays, [np.asarray(value) for value in produced]))
    return model, data_sets, f"onnxscript {onnxscript.__version__}"


def onnxscript_models():
    import exporter_corpus_onnxscript as functions
    for name, function, specs in functions.FUNCTIONS:
        yield _guard(f"onnxscript_{name}", _onnxscript_model, name, function, specs)


# --- tf2onnx -------------------------------------------------------------------------------------

def _tf_functions():
    """(name, function of float32 tensors, input shapes): TensorArray loops, lists, map_fn."""
    import tensorflow as tf

    def array_loop(x):
        out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(tf.shape(x)[0]):
            out = out.write(i, x[i] * 2.0)
        return out.stack()

    def array_read(x):
        parts = tf.TensorArray(tf.float32, size=tf.shape(x)[0]).unstack(x)
        return parts.read(1) + parts.read(0)

    def array_concat(x):
        out = tf.TensorArray(tf.float32, size=3, infer_shape=False)
        for i in tf.range(3):
            out = out.write(i, x * tf.cast(i, tf.float32))
        return out.concat()

    def map_fn(x):
        return tf.map_fn(lambda row: tf.reduce_sum(row * row), x)

    def unstack_stack(x):
        return tf.stack(tf.unstack(x, axis=0)[::-1], axis=1)

    def split_list(x):
        return tf.concat(tf.split(x, 2, axis=1), axis=0)

    def while_list(x):
        out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        y = x
        i = tf.constant(0)
        while tf.reduce_sum(tf.abs(y)) > 0.5 and i < 5:
            out = out.write(i, y)
            y = y * 0.5
            i += 1
        return out.size(), out.stack()

    def cond_list(x):
        if tf.reduce_sum(x) > 0:
            parts = tf.split(x, 2, axis=0)
        else:
            parts = tf.split(x, [1, 3], axis=0)
        return tf.reduce_sum(parts[0], axis=0)

    return [("array_loop", array_loop, [(3, 2)]), ("array_read", array_read, [(3, 2)]),
            ("array_concat", array_concat, [(2, 2)]), ("map_fn", map_fn, [(4, 3)]),
            ("unstack_stack", unstack_stack, [(3, 2)]), ("split_list", split_list, [(2, 4)]),
            ("while_list", while_list, [(2, 2)]), ("cond_list", cond_list, [(4, 2)])]


def _tf_model(name: str, function, shapes):
    import tensorflow as tf
    import tf2onnx
    generator = rng(name)
    specs = [tf.TensorSpec(shape, tf.float32, name=f"x{j}")
             for j, shape in enumerate(shapes)]
    traced = tf.function(function, input_signature=specs)
    model, _ = tf2onnx.convert.from_function(traced, input_signature=specs, opset=17)
    data_sets = []
    for _ in range(DATA_SETS):
        arrays = [generator.standard_normal(shape).astype(np.float32) for shape in shapes]
        produced = traced(*arrays)
        produced = tuple(produced) if isinstance(produced, (tuple, list)) else produced
        data_sets.append((arrays, match_outputs(model, _tf_numpy(produced))))
    return model, data_sets, f"tf2onnx {tf2onnx.__version__} (tensorflow {tf.__version__})"


def _tf_numpy(value):
    if isinstance(value, tuple):
        return tuple(_tf_numpy(item) for item in value)
    return np.asarray(value)


def tf2onnx_models():
    for name, function, shapes in _tf_functions():
        yield _guard(f"tf2onnx_{name}", _tf_model, name, function, shapes)
