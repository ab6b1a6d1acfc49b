"""How the solver's numba kernels are compiled and cached.

Two decorators, both numba's `njit(cache=True)` underneath:

    @kernel   a kernel Python calls (World.step calls step_frame): it has numba's CPython
              entry point
    @helper   everything kernels call: compiled without that entry point, which is a good
              part of a small function's compile time (about 20 of 50 ms) and is never used;
              calling a helper from Python raises TypeError instead of crashing.
              A short helper (SHORT_HELPER lines or fewer) is inlined by LLVM wherever it is
              called (numba's forceinline); `outline=True` keeps a real call (the step's
              stages, which step_frame calls once per substep: inlined, they made
              step_frame one function too big to optimise quickly); `inline=True` is numba's
              IR-level inlining, for one-line adapters only (see `helper`);
              `separate=True` compiles it to machine code of its own, called by symbol
              (step_frame's big stages, below).

Why not plain `njit(cache=True, inline="always")`: the first run compiles the whole solver,
and these made that take minutes (`bench/startup.py` prints the cold compile and the
seconds per kernel):

* numba's IR-level inlining types every inlined copy again: a joint's prepare inlined every
  primitive, every primitive the row helpers, so prepare_joint_rows alone took minutes. LLVM's
  inliner (forceinline) gives the same machine code from one typing per function.
* numba compiles a callee once per argument *type*, and a constant argument is typed as its
  literal value: `make_block(r0, 3, ...)` and `make_block(r0, 2, ...)` were two compiles,
  `_k_entry` had 18. A kernel here never needs a literal, so calls from kernels are typed
  with plain types (one compile per signature): 429 -> 321 compiles.
* helpers' own machine code: numba optimises every function's library as a whole, compiles
  it to machine code and caches that code; a caller links the callee's module into its own
  and optimises and compiles everything again, so a helper four calls deep was optimised four
  times and compiled to machine code nothing ran. A helper's library here (`_HelperLibrary`)
  only links its callees: the kernel that links it optimises and compiles it once, and its
  cache entry is that module (no machine code). Its Environment is set by the kernels
  (`_KernelLibrary`). numba's own implementations that a solver function calls (np.zeros,
  np.empty, np.full ..., one library per argument type) are treated alike
  (`_LibraryChoice`). If numba's code libraries are not the ones this was written against
  (`_internals_as_expected`), or LIGAMENT_LINKED_HELPERS=0, helpers compile as numba
  compiles them.
* one kernel optimised whole: step_frame linked all of its stages and their callees into
  one module, optimised and compiled to machine code in one process (about 30 of the 130
  CPU s of a one-core cold compile). A separate stage (`helper(separate=True)`) is
  compiled to machine code in its own library, once, and its callers' modules only
  declare it (`_CallsStages`): the execution engine resolves the call against the stage's
  code, which is loaded first, and a cached caller's entry names its stages so that a
  process loading it loads them first (`_load_stages`). Stages compile in two processes at
  once (solver/warmup.py). No fast-math: whether code is inlined cannot change the
  arithmetic. If numba's internals differ (`_symbols_as_expected`), or with
  LIGAMENT_SEPARATE_STAGES=0, stages are linked as numba links callees.
* entry points: numba gives every function it compiles a C-callable wrapper (`cfunc.`, for
  first-class function values, which the solver never makes) as well as the Python one;
  generating it was about 6 % of a cold compile. No solver function gets one (kernels keep
  the Python entry point).
* numba's flags: typing looks each call's implementation up by a key holding the
  compile's flags, whose hash and equality build a dict of all 22 option values through
  their properties, 700 000 times in a cold compile (about 5 % of it);
  `_quick_flag_values` builds the same dict in one pass, twice as fast.
  Their hash and equality (`_quick_flag_compare`) need no such dict: numba hashes the
  sorted option names (the same number for all flags), so every lookup compared flags.
* numba's IR analyses ask each statement for the variables it reads and writes (1.2
  million times in a cold compile), and numba's answer recursed into every attribute of
  the statement, its location and names included (7 million calls): `_quick_list_vars`
  gives the same list in one loop.
* reference counts: to find the pointer numba counts in a value, it read every field of
  it (an array's seven, its shape's and strides' items) and looked inside each; LLVM then
  deleted the reads as dead code. `_quick_meminfos` reads only the fields on the way to a
  pointer: the same increments and decrements of the same pointers.
* more of numba's and llvmlite's Python around LLVM, each answer the same: an LLVM type's
  ABI size (llvmlite prints and parses a module for each) remembered (`_quick_abi_sizes`);
  the LLVM lock's events handed to numba's timers without an event object each
  (`_quick_lock_events`); the typing templates' order (`_quick_template_order`) and a
  NumPy ufunc's loop (`_quick_ufunc_loops`) worked out once; instructions named in one
  call (`_quick_names`); a function that only borrows lowered without the reference
  counts numba emitted and `_BorrowingLower` deleted (`_quiet_refcounts`).
* the CPU: code generation for the host's own CPU (AVX2 and up) takes a third longer than for
  the portable x86-64 baseline, and a kernel built for the host's CPU cannot be shipped. The
  solver's arithmetic is scalar (3-vectors in registers), so the baseline costs it little
  (README, "First run"). Unless NUMBA_CPU_NAME or LIGAMENT_CPU=host says otherwise, and as
  long as nothing in this process compiled with numba before the solver was imported, numba
  generates portable code (NUMBA_CPU_NAME=generic) for the whole process.
* reference counts (numba 0.66 and later): numba increments the reference count of every
  array a function receives on entry and decrements it on each exit, an atomic instruction
  each (`lock inc`, `lock dec`). Up to 0.65 a lowering pass of numba's own (removerefctpass)
  dropped them all from a function that only borrows its arrays; 0.66 removed that pass
  and leaves them to LLVM's reference-count pruner, which pairs an increment with a
  decrement only in simple control flow: in a helper with several exits (an early return,
  a raise) it keeps them, under LLVM 20 as under 22. Inlined into the loops over rows,
  joints and contacts they made the step about 4 times slower, most of a frame spent in
  NRT_incref and NRT_decref. `_BorrowingLower` applies numba 0.65's test and drops them
  again, where numba no longer does.
* the cache's validity: numba stamps a cached kernel with its own source file's modification
  time only, so an edit to a callee in another file left callers stale, and an installer that
  rewrote identical files made every kernel stale. Here a kernel is stamped with a hash of the
  contents of every solver source file, and kept in a folder named by that hash: any edit
  anywhere recompiles everything, an identical copy of the sources (a reinstall, an upgrade
  that keeps the solver) reuses everything, and kernels built once can ship in the extension.
* the package's name: numba records the module a kernel was compiled in and imports it by
  that name when it loads the kernel. Tests and scripts import the solver as `solver`, the
  extension as `_ligament_solver_<hash>` (addon/kernels.py), so each would have compiled
  its own set. Cache files here record the package name they were written under and are
  read relative to this process's (`_PortableCacheFile`): one compile per Python, numba,
  llvmlite and NumPy serves the extension's zip, the test runs and headless users.

Where kernels are cached, first match:
    $LIGAMENT_KERNEL_CACHE/<hash>/    if set
    $NUMBA_CACHE_DIR/ligament/<hash>/ if set
    solver/_kernels/<hash>/           beside the sources (what the extension zip ships)
    numba's user cache folder/ligament/<hash>/  when the sources' folder is read-only
A cache folder elsewhere than beside the sources is seeded from the one beside them when
that one holds kernels of the same hash (the shipped kernels of an installed extension).
"""

import contextlib
import hashlib
import io
import linecache
import operator
import os
import pickle
import shutil
import sys
import tempfile
import types as pytypes
from types import MappingProxyType

from numba.core import codegen as _codegen
from numba.core import compiler, ir, lowering, targetconfig, typed_passes
from numba.core import config as _numba_config
from numba.core.compiler_lock import global_compiler_lock
from numba.core.environment import lookup_environment
from numba.core import types
from numba.core.caching import FunctionCache, IndexDataCacheFile, _CacheLocator
from numba.core.environment import _rebuild_env
from numba.core.funcdesc import FunctionDescriptor
from numba.core.compiler_machinery import PassManager, register_pass
from numba.core.registry import CPUDispatcher, cpu_target
from numba.core.runtime import context as _numba_nrt

from .stamp import source_hash

SOLVER_DIR = os.path.dirname(os.path.abspath(__file__))
SHIPPED_ROOT = os.path.join(SOLVER_DIR, "_kernels")
PORTABLE_CPU = "generic"


def _portable_cpu():
    """Generate portable code unless the user chose a CPU or numba already made its code
    generator (it reads the CPU once, when the first numba function is created)."""
    if os.environ.get("LIGAMENT_CPU", "portable") == "host" or \
            "NUMBA_CPU_NAME" in os.environ or "_toplevel_target_context" in vars(cpu_target):
        return
    _numba_config.CPU_NAME = PORTABLE_CPU
    _numba_config.CPU_FEATURES = ""


_portable_cpu()


STAMP = source_hash(SOLVER_DIR)
KEY = STAMP[:16]


def writable(path):
    """Whether this process may create files in folder `path` (made if missing): a cache
    folder it cannot write keeps kernels in memory (`unwritable`)."""
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
        return True
    except OSError:
        return False


def _seed(folder):
    """Fill an empty cache folder from the shipped kernels of the same hash, atomically (a
    second process seeding at the same time finds the folder complete or absent)."""
    shipped = os.path.join(SHIPPED_ROOT, KEY)
    if os.path.isdir(folder) or not os.path.isdir(shipped) or \
            os.path.abspath(folder) == os.path.abspath(shipped):
        return
    parent = os.path.dirname(folder)
    try:
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".seed-", dir=parent)
    except OSError:
        return                       # not writable: kernels compile in memory (`unwritable`)
    try:
        shutil.copytree(shipped, os.path.join(tmp, KEY))
        os.replace(os.path.join(tmp, KEY), folder)
    except OSError:
        pass                         # someone else seeded it first; theirs is as good
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _prune(root):
    """Remove kernel folders of other source hashes beside the sources (each edit of the
    solver would otherwise leave a folder behind)."""
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        if name != KEY and len(name) == len(KEY) and not name.startswith("."):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


def cache_folder():
    """The folder this process reads and writes kernels in (see the module docstring)."""
    explicit = os.environ.get("LIGAMENT_KERNEL_CACHE")
    if explicit:
        folder = os.path.join(explicit, KEY)
    elif os.environ.get("NUMBA_CACHE_DIR"):
        folder = os.path.join(os.environ["NUMBA_CACHE_DIR"], "ligament", KEY)
    elif writable(SHIPPED_ROOT):
        _prune(SHIPPED_ROOT)
        return os.path.join(SHIPPED_ROOT, KEY)
    else:
        from numba.misc.appdirs import AppDirs
        folder = os.path.join(AppDirs("numba", appauthor=False).user_cache_dir, "ligament", KEY)
    _seed(folder)
    return folder


CACHE_FOLDER = cache_folder()


class _SourceHashLocator(_CacheLocator):
    """numba's cache locator for the solver's files: one folder per source hash, laid out
    like the package (joints/, primitives/ ... so equal module names do not collide), the
    source hash as every kernel's stamp."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        rel = os.path.relpath(os.path.dirname(os.path.abspath(py_file)), SOLVER_DIR)
        self._cache_path = os.path.normpath(os.path.join(CACHE_FOLDER, rel))

    def ensure_cache_path(self):
        os.makedirs(self._cache_path, exist_ok=True)

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return STAMP

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        inside = os.path.abspath(py_file).startswith(SOLVER_DIR + os.sep)
        return cls(py_func, py_file) if inside else None


class _LoadsHelpers:
    """numba's cache of compile results, which also loads a helper's (`_HelperLibrary`), and
    the separate stages a cached function calls by symbol before the function itself."""

    def rebuild(self, target_context, payload):
        """A kernel as numba loads it; a helper's module (`_HelperLibrary`) as callers link it.
        None (numba compiles it again) when a stage it calls by symbol is not the one it was
        compiled against (`_load_stages`)."""
        name, kind, data = payload[0]
        codegen = target_context.codegen()
        stages = ()
        with global_compiler_lock:
            if kind == _CALLS_KIND:
                stages, kind, data = data
                if not _load_stages(codegen, stages):
                    return None
                payload = ((name, kind, data),) + tuple(payload[1:])
            elif kind == _IR_KIND:
                stages = data[1]
                if not _load_stages(codegen, stages):
                    return None
            if kind != _IR_KIND:
                cres = super().rebuild(target_context, payload)
            else:
                codegen.unserialize_library = lambda state: _HelperLibrary.from_ir(codegen,
                                                                                    state)
                try:
                    cres = super().rebuild(target_context, payload)
                finally:
                    del codegen.unserialize_library
            if stages and isinstance(cres.library, _CallsStages):
                cres.library.keep_stages(stages)
            return cres


class _KernelCacheImpl(_LoadsHelpers, FunctionCache._impl_class):
    _locator_classes = [_SourceHashLocator]


class _OtherCacheImpl(_LoadsHelpers, FunctionCache._impl_class):
    pass


class _OtherCache(FunctionCache):
    """numba's cache beside the sources, for kernels defined outside the solver (tests')."""
    _impl_class = _OtherCacheImpl


PACKAGE = __name__.rpartition(".")[0]     # "solver", or the extension's "_ligament_solver_..."


def _here(modname, written_under):
    """The name in this process of module `modname` of the package as it was imported when
    a cache file was written (`written_under`); other modules keep their names."""
    if modname == written_under or modname.startswith(written_under + "."):
        return PACKAGE + modname[len(written_under):]
    return modname


class _Unpickler(pickle.Unpickler):
    """Reads a cache file written with the package imported as `written_under`: its classes
    (direct.Plan in a signature) and the module each Environment is rebuilt from (numba
    imports that module by name, _rebuild_env) are this process's."""

    def __init__(self, file, written_under):
        super().__init__(file)
        self.written_under = written_under

    def find_class(self, module, name):
        if (module, name) == ("numba.core.environment", "_rebuild_env"):
            written_under = self.written_under
            return lambda modname, consts, env_name: _rebuild_env(
                _here(modname, written_under), consts, env_name)
        return super().find_class(_here(module, self.written_under), name)


class _PortableCacheFile(IndexDataCacheFile):
    """numba's index and data files, each opened by the name of the package they were
    written under (so a kernel compiled with the solver imported as `solver` loads in the
    extension, which imports it as `_ligament_solver_<hash>`, and the other way round).

    numba records a kernel's module by name: its Environment is rebuilt on load by importing
    that module, and its function descriptor names it. Everything else that names it is a
    symbol of the compiled code (the mangled names, env_name), which stays as it was: the
    code is the same machine code whatever the package was called."""

    def _dump(self, obj):
        return pickle.dumps(PACKAGE, protocol=-1) + super()._dump(obj)

    def save(self, key, data):
        """numba's save, safe with other processes saving the same function at once (a
        farm's jobs started together, pytest's workers, a compile worker beside its main
        process). numba reads the index, adds the entry, writes the index back and names
        the data file by the first number free in the index it read: two processes saving
        two signatures at once each wrote an index without the other's entry, and both
        wrote data file 1 (a signature lost, compiled again by every later process, or
        loaded with the other's code). Here the data file is named by its key and written
        first (an entry never names a missing or a foreign file), and the index is read,
        updated and written back under a lock on its folder (`_index_lock`)."""
        name = self._key_name(key)
        self._save_data(name, data)
        with _index_lock(self._cache_path):
            overloads = self._load_index()
            if overloads.get(key) != name:
                overloads[key] = name
                self._save_index(overloads)

    def _key_name(self, key):
        """The data file of `key`, by numba's version too: numbas of one Python share the
        index file's name, and one's data must never be read as the other's."""
        digest = hashlib.sha256(repr((self._version, key)).encode()).hexdigest()[:16]
        return self._data_name_pattern.replace("{number:d}", digest)

    def _loads(self, data):
        stream = io.BytesIO(data)
        written_under = pickle.load(stream)
        if not isinstance(written_under, str):      # not a file of this format: not ours
            raise _Foreign()
        obj = _Unpickler(stream, written_under).load()
        for part in obj if isinstance(obj, tuple) else ():
            if isinstance(part, FunctionDescriptor):
                part.modname = _here(part.modname, written_under)
        return obj

    def _load_index(self):
        try:
            with open(self._index_path, "rb") as f:
                version = pickle.load(f)
                data = f.read()
        except Exception:                # none yet, or damaged where numba's version was
            return {}
        if version != self._version:     # another numba's: its pickles may not even load
            return {}
        try:
            stamp, overloads = self._loads(data)
        except Exception:                # not ours, or damaged: as if there were none
            return {}
        return overloads if stamp == self._source_stamp else {}

    def _load_data(self, name):
        """A data file's compile result; OSError (numba's cache miss: the kernel compiles
        again and its entry is written anew) when it is not one this can read: another
        format's, or damaged (cut short by a machine that lost power before it reached the
        disk, a copy stopped half way)."""
        with open(self._data_path(name), "rb") as f:
            data = f.read()
        try:
            return self._loads(data)
        except Exception as e:
            raise OSError(f"{name}: not a kernel cache file this can read ({e!r})") from None


class _Foreign(Exception):
    pass


@contextlib.contextmanager
def _index_lock(folder):
    """Holds the lock on a cache folder's index files: an exclusive flock on the folder
    itself (no lock file to ship or leave behind), which the system releases when its
    process ends, however it ends. Without one (Windows has no fcntl; NFS may refuse an
    exclusive lock on a folder opened for reading) an entry saved at the same moment as
    another of the same function may be lost, and compiles again."""
    try:
        import fcntl
        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(fd)


class _KernelCache(FunctionCache):
    _impl_class = _KernelCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _PortableCacheFile(
            cache_path=self._cache_path, filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp())

    def save_overload(self, sig, data):
        """numba's, except that a cache folder this process may not write (a farm's
        shared kernels, a read-only mount, a full disk) leaves the kernel compiled in
        memory, said once, instead of failing the compile."""
        try:
            super().save_overload(sig, data)
        except OSError as e:
            unwritable(e)


_SAID = []


def unwritable(error):
    """Says once per process that kernels cannot be saved in CACHE_FOLDER."""
    if not _SAID:
        _SAID.append(error)
        print(f"Ligament: the kernel cache folder {CACHE_FOLDER} is not writable "
              f"({error.strerror or error}): kernels compile in memory for this process "
              f"only; set LIGAMENT_KERNEL_CACHE to a writable folder to keep them",
              file=sys.stderr, flush=True)


SHORT_HELPER = 15     # lines; longer helpers inlined gained no frame time and cost compile time


def _short(py_func):
    """Whether a helper is short enough to inline wherever it is called (lines after the
    decorator and the def line, blank lines and comments left out: a rough measure). Its
    last line is the last its bytecode names (inspect.getsource tokenized the file again
    for every helper: a sixth of the solver's import)."""
    code = py_func.__code__
    stack, last = [code], code.co_firstlineno
    while stack:
        c = stack.pop()
        last = max([last] + [line for _, _, line in c.co_lines() if line])
        stack.extend(k for k in c.co_consts if isinstance(k, pytypes.CodeType))
    body = linecache.getlines(code.co_filename)[code.co_firstlineno + 1:last]
    lines = [l for l in body if l.strip() and not l.strip().startswith(("#", '"""'))]
    return len(lines) <= SHORT_HELPER


_REFCOUNT_OPS = ("NRT_incref", "NRT_decref")


def _borrows_only(lower):
    """Whether the function `lower` has just lowered only borrows reference-counted values:
    every one it sees is an array its caller passed, or a part or a view of one, and the
    caller holds a reference to it for the whole call. Then the function's reference-count
    operations cancel out and none can free anything. numba up to 0.65 dropped them
    (removerefctpass) on these conditions (the test of what it calls a little stricter
    here), for arrays only; here tuples of them too (`_borrowed`): the step's stages take
    their tables as tuples, and taking an array out of one counted a reference up and down
    each time, a tenth of a ragdoll's frame (docs/performance.md, "One ragdoll's fixed
    cost"); and views of them (`_borrowed_part`: `order[a:b]`, `gk[k]`, a reshape, a loop
    over an array), which hold the array's own memory and counted it up and down for each
    island and row (docs/performance.md, 2026-11-30, branch views44):
    * its arguments: arrays, tuples of them, iterators over them, or types without a
      reference count
    * its result and the results of everything it calls: no reference count (no array made,
      no view or array handed back), but for the parts and views of borrowed values
      (`_borrowed_part`)
    * everything it calls takes arrays, tuples of them or values without a reference count
      (a callee taking a list or a dict may keep an array in it; one taking a tuple can
      only hand an array back, which its result shows)
    * no NRT function but incref/decref in its module (no allocation).
    A view made here can leave the function only through its result or a container, and
    both are excluded: it dies with the call, before the array it views."""
    return _borrows_arguments(lower) and not any(
        f.name.startswith("NRT_") and f.name not in _REFCOUNT_OPS
        for f in lower.module.functions)


def _borrows_arguments(lower):
    """`_borrows_only`'s tests that the function's types answer before it is lowered (all
    but the last: its module's NRT functions)."""
    dmm = lower.context.data_model_manager

    def counted(ty):
        return dmm[ty].contains_nrt_meminfo()

    def borrowed(ty):
        return _borrowed(dmm, ty)

    fndesc = lower.fndesc
    if not all(borrowed(t) for t in fndesc.argtypes) or counted(fndesc.restype):
        return False
    for expr, sig in fndesc.calltypes.items():
        if sig is None:
            continue
        if counted(sig.return_type) and not _borrowed_part(expr, sig, fndesc.typemap, dmm):
            return False
        if not all(borrowed(t) for t in sig.args):
            return False
    return True


def _borrowed(dmm, ty):
    """A value of type `ty` passed in is borrowed for a call: an array, a tuple (named or
    not) of borrowed values, an iterator over an array, or a value without a reference
    count."""
    if isinstance(ty, types.Array):
        return True
    if isinstance(ty, types.BaseTuple):
        return all(_borrowed(dmm, t) for t in ty.types)
    if isinstance(ty, types.ArrayIterator):
        return True
    return not dmm[ty].contains_nrt_meminfo()


# index types of numba's basic indexing, which makes a view (an array index makes a copy)
_VIEW_INDEX = (types.Integer, types.SliceType, types.EllipsisType, types.NoneType)


def _view_index(ty):
    if isinstance(ty, types.BaseTuple):
        return all(isinstance(t, _VIEW_INDEX) for t in ty.types)
    return isinstance(ty, _VIEW_INDEX)


def _borrowed_part(expr, sig, typemap, dmm):
    """Whether `expr` (typed `sig`) makes no new reference-counted value, only borrowed
    values of what it reads, which hold the memory of the caller's arrays:
    * a part of a tuple: an item, two tuples joined, `tuple()` of a tuple (how numba passes
      `f(*R)`), a named tuple built of borrowed values (`Plan(...)`);
    * a view of an array: basic indexing (`a[i:j]`, `a[k]` of a 2-d array, `a[:, 0]`),
      `a.reshape(...)` (numba's reshape never copies: it raises instead);
    * an iterator over an array and its items (`for r in rows`).
    Its result holds the arrays the caller keeps alive."""
    if not isinstance(expr, ir.Expr) or not _borrowed(dmm, sig.return_type):
        return False
    if expr.op == "getiter":
        return len(sig.args) == 1 and isinstance(sig.args[0], types.Array)
    if expr.op == "iternext":
        return len(sig.args) == 1 and isinstance(sig.args[0], types.ArrayIterator)
    if expr.op == "call":
        func = typemap.get(expr.func.name)
        if isinstance(func, types.NamedTupleClass):
            return True                      # its arguments are borrowed: checked by the caller
        if isinstance(func, types.BoundFunction) and func.typing_key == "array.reshape":
            return isinstance(func.this, types.Array)
    if not sig.args:
        return False
    if isinstance(sig.args[0], types.Array):
        return expr.op in ("getitem", "static_getitem") and len(sig.args) == 2 and \
            _view_index(sig.args[1])
    if not isinstance(sig.args[0], types.BaseTuple):
        return False
    if expr.op in ("getitem", "static_getitem", "typed_getitem"):
        return True
    if expr.op in ("binop", "inplace_binop") and expr.fn in (operator.add, operator.iadd):
        return all(isinstance(t, types.BaseTuple) for t in sig.args)
    if expr.op == "call" and len(sig.args) == 1:
        func = typemap.get(expr.func.name)
        return isinstance(func, types.Function) and func.typing_key is tuple
    return False


class _Recount(Exception):
    """A function lowered without its reference counts (`_UNCOUNTED`) allocates after all:
    its lowering starts again, counting."""


_UNCOUNTED = set()     # llvmlite modules being lowered without reference-count operations
_COUNTED = "ligament_counted"          # metadata: lower this function with them


class _BorrowingLower(lowering.Lower):
    """numba's lowering, without the reference-count operations of a function that only
    borrows arrays (see `_borrows_only` and the module docstring). When its types show it
    borrows (`_borrows_arguments`), they are not emitted at all (`_quiet_refcounts`: numba
    emitted each with the reads of its pointer, named, printed and parsed, all then
    deleted); if its module then calls another NRT function, it is lowered again with
    them (`_Recount`)."""

    def lower_normal_function(self, fndesc):
        nrt = self.context.enable_nrt
        quiet = nrt and _QUIET_REFCOUNTS and not (self.metadata or {}).get(_COUNTED) and \
            _borrows_arguments(self)
        if quiet:
            _UNCOUNTED.add(self.module)
        try:
            super().lower_normal_function(fndesc)
        finally:
            _UNCOUNTED.discard(self.module)
        if nrt and _borrows_only(self):
            for block in self.function.blocks:
                block.instructions[:] = [
                    i for i in block.instructions
                    if getattr(getattr(i, "callee", None), "name", None) not in _REFCOUNT_OPS]
        elif quiet:
            raise _Recount(fndesc.qualname)


_NUMBA_INCREF_DECREF = vars(_numba_nrt.NRTContext).get("_call_incref_decref")


def _quiet_refcounts():
    """numba's `NRTContext._call_incref_decref` (every incref and decref numba emits: the
    reads of the value's pointers, then a call per pointer) emitting nothing into a module
    `_BorrowingLower` lowers without them (`_UNCOUNTED`), where they would all be deleted
    (about 40 000 in a cold compile). Any other module gets numba's. The machine code is
    the same: the reads had no other use, and LLVM deleted them. numba code of another
    shape: numba's own (emitted, then deleted)."""
    original = _NUMBA_INCREF_DECREF
    code = getattr(original, "__code__", None)
    if code is None or code.co_varnames[:code.co_argcount] != (
            "self", "builder", "typ", "value", "funcname"):
        return False
    uncounted = _UNCOUNTED

    def _call_incref_decref(self, builder, typ, value, funcname):
        if uncounted and builder.module in uncounted:
            return None
        return original(self, builder, typ, value, funcname)
    _call_incref_decref.__qualname__ = "_quiet_refcounts.<locals>._call_incref_decref"
    _numba_nrt.NRTContext._call_incref_decref = _call_incref_decref
    return True


_QUIET_REFCOUNTS = _quiet_refcounts()


_IR_KIND = "ligament-helper-ir"      # a helper's cache entry: its module as callers link it
_CALLS_KIND = "ligament-calls-stages"  # a kernel's, calling separate stages by symbol
_HELPER_ENVS = set()                   # Environment names of helpers, set by the kernels


def _internals_as_expected():
    """Whether numba's code libraries are those `_HelperLibrary` was written against
    (numba 0.65 to 0.68); otherwise helpers are compiled as numba compiles them."""
    lib = _codegen.JITCodeLibrary
    return all(hasattr(lib, name) for name in (
        "_finalize_final_module", "_get_module_for_linking", "_finalize_dynamic_globals",
        "_verify_declare_only_symbols", "get_pointer_to_function", "_raise_if_finalized",
        "serialize_using_object_code", "enable_object_caching")) and \
        hasattr(_codegen.JITCPUCodegen, "set_env") and hasattr(_codegen, "ll") and \
        _codegen.JITCPUCodegen._library_class is lib and hasattr(lib, "_unserialize") and \
        hasattr(typed_passes.NativeLowering, "lowering_class")


LINKED_HELPERS = os.environ.get("LIGAMENT_LINKED_HELPERS", "1") != "0" and \
    _internals_as_expected()


def _symbols_as_expected():
    """Whether numba calls a compiled function through what `_CallsStages` expects: its
    library linked into the caller's by `add_linking_library`, the execution engine's
    record of the symbols it holds, a cached compile result rebuilt from its library."""
    from numba.core import bytecode, imputils
    engine = _codegen.JitEngine
    return hasattr(engine, "is_symbol_defined") and hasattr(engine, "_load_defined_symbols") \
        and hasattr(compiler.CompileResult, "_rebuild") and \
        hasattr(imputils, "user_function") and \
        "unique_id" in vars(bytecode.FunctionIdentity.from_function(_symbols_as_expected))


SEPARATE_STAGES = LINKED_HELPERS and \
    os.environ.get("LIGAMENT_SEPARATE_STAGES", "1") != "0" and _symbols_as_expected()


class _HelperCodegen:
    """The code generator as a helper's library shows it to numba: a helper's code is never
    in the execution engine, so its Environment is set by each kernel that links it."""

    def __init__(self, codegen):
        self._codegen = codegen

    def __getattr__(self, name):
        return getattr(self._codegen, name)

    def set_env(self, env_name, env):
        _HELPER_ENVS.add(env_name)


class _CallsStages:
    """A code library that may call separate stages (`helper(separate=True)`) by symbol: a
    stage's library is not linked into it (numba links every callee's); the module keeps the
    stage's declaration, and the execution engine resolves it against the stage's machine
    code, loaded first. `_stages`: {symbol: (module, qualname, argument types)} of the
    stages this library and everything linked into it call, kept in its cache entry so
    that a process loading it loads them first (`_load_stages`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._stages = {}

    def add_linking_library(self, library):
        stage = getattr(library, "stage", None)
        if stage is None:
            return super().add_linking_library(library)
        library._ensure_finalized()
        self._stages[stage[0]] = stage[1:]

    def keep_stages(self, stages):
        self._stages.update((symbol, rest) for symbol, *rest in stages)

    def _gather_stages(self):
        """The stages of the libraries linked into this one, which must be in the execution
        engine before this library's module is (or a call would resolve to nothing)."""
        for library in self._linking_libraries:
            self._stages.update(getattr(library, "_stages", {}))
        if not _load_stages(self._codegen, self.stage_list()):
            raise RuntimeError(f"{self.name}: a stage it calls by symbol is not loaded "
                               f"(LIGAMENT_SEPARATE_STAGES=0 links them as numba does)")

    def stage_list(self):
        return tuple((symbol,) + tuple(rest) for symbol, rest in self._stages.items())


def _load_stages(codegen, stages):
    """Load (or compile) the separate stages `stages` ((symbol, module, qualname, argument
    types) each) into this process's execution engine; False when one of them, loaded,
    has another symbol (its cache entry was written by another compile: the caller's entry
    is then stale)."""
    import importlib
    engine = codegen._engine
    for symbol, module, qualname, argtypes in stages:
        if engine.is_symbol_defined(symbol):
            continue
        dispatcher = importlib.import_module(PACKAGE + module if module[0] == "." else module)
        for part in qualname.split("."):
            dispatcher = getattr(dispatcher, part)
        dispatcher.compile(tuple(argtypes))
        if not engine.is_symbol_defined(symbol):
            return False
    return True


class _HelperLibrary(_CallsStages, _codegen.JITCodeLibrary):
    """A helper's code library: its module as every caller links it, never optimised as a
    whole nor compiled to machine code of its own (nothing calls a helper but kernels, and
    numba links each callee's module into its caller's and optimises and compiles the kernel's
    module with everything in it). numba finalises every library it compiles, so a helper
    four calls deep was optimised and compiled four times, each copy's machine code unused."""

    @property
    def codegen(self):
        return _HelperCodegen(self._codegen)

    def finalize(self):
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                seen.add(library)
                self._reload_init.update(library._reload_init)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        for library in seen:
            self._stages.update(getattr(library, "_stages", {}))
        self._final_module.verify()
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        return 0

    def serialize_using_object_code(self):
        return (self.name, _IR_KIND,
                (self._get_module_for_linking().as_bitcode(), self.stage_list()))

    @classmethod
    def from_ir(cls, codegen, state):
        name, kind, (bitcode, stages) = state
        self = cls(codegen, name)
        self._final_module = self._shared_module = _codegen.ll.parse_bitcode(bitcode)
        self.keep_stages(stages)
        self._finalized = True
        return self


class _LibraryChoice:
    """What numba's code generator creates for a library (`codegen.create_library`), once a
    solver function has compiled in this process: while a solver function compiles, the
    libraries numba makes for its own implementations that it calls (np.empty, np.zeros,
    array.copy ... : `@overload` functions and `compile_subroutine`s, one per argument
    type) are link-only like helpers' (`_HelperLibrary`), and linked into the kernel; numba
    optimised each and compiled it to machine code nothing ran. Any other library is a
    `_KernelLibrary`: numba's, setting the Environments of link-only libraries linked into
    it (so a later function of anyone's in this process may link one of these too)."""

    def _unserialize(self, codegen, state):
        """A kernel loaded from the cache: machine code (numba creates the library through
        `codegen.create_library`, which may be called while a solver function compiles)."""
        depth, _COMPILING[0] = _COMPILING[0], 0
        try:
            return _codegen.JITCodeLibrary._unserialize(codegen, state)
        finally:
            _COMPILING[0] = depth

    def __call__(self, codegen, name, **kwargs):
        cls = _HelperLibrary if _COMPILING[0] else _KernelLibrary
        return cls(codegen, name, **kwargs)


_COMPILING = [0]                     # solver functions compiling now (numba's compiler lock)


def _choose_libraries(codegen):
    if LINKED_HELPERS and not isinstance(vars(codegen).get("_library_class"), _LibraryChoice):
        codegen._library_class = _LibraryChoice()


_SEPARATE = set()                    # py_funcs of separate stages (`helper(separate=True)`)


class _KernelLibrary(_CallsStages, _codegen.JITCodeLibrary):
    """A kernel's (or a separate stage's) code library: once in the execution engine, it
    sets the Environments of the helpers linked into it (numba sets each helper's through
    its own library)."""

    stage = None        # (symbol, module, qualname, argument types) of a separate stage

    def finalize(self):
        self._gather_stages()
        super().finalize()

    def serialize_using_object_code(self):
        name, kind, data = super().serialize_using_object_code()
        if self._stages:
            return (name, _CALLS_KIND, (self.stage_list(), kind, data))
        return (name, kind, data)

    def _finalize_final_module(self):
        super()._finalize_final_module()
        for gv in self._final_module.global_variables:
            if gv.name in _HELPER_ENVS:
                env = lookup_environment(gv.name)
                if env is not None and self._codegen._engine.get_global_value_address(gv.name):
                    self._codegen.set_env(gv.name, env)


@register_pass(mutates_CFG=True, analysis_only=False)
class _SolverLowering(typed_passes.NativeLowering):
    """numba's lowering, into a `_HelperLibrary` or `_KernelLibrary` (LINKED_HELPERS), with
    `_BorrowingLower` where numba no longer drops borrowed arrays' reference counts."""
    _name = "ligament_lowering"

    @property
    def lowering_class(self):
        return _BorrowingLower        # numba <= 0.65 drops arrays' first, this tuples' too

    def run_pass(self, state):
        if state.library is None and LINKED_HELPERS:
            separate = state.func_id.func in _SEPARATE
            helper = state.flags.no_cpython_wrapper and not state.flags.auto_parallel.enabled \
                and not separate
            cls = _HelperLibrary if helper else _KernelLibrary
            state.library = cls(state.targetctx.codegen(), state.func_id.func_qualname)
            state.library.enable_object_caching()
            if separate:
                # its symbol the same whichever process compiles it: numba numbers each
                # compile of a process into the mangled name (for closures of one name),
                # and a cached caller names the symbol of the stage it was compiled against
                state.func_ir.func_id.unique_id = 0
        try:
            return super().run_pass(state)
        except _Recount:                   # it allocates: its reference counts are needed
            state.metadata[_COUNTED] = True
            return super().run_pass(state)


class _Compiler(compiler.CompilerBase):
    """numba's nopython pipeline with `_SolverLowering` for its lowering."""

    def define_pipelines(self):
        default = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm = PassManager(default.pipeline_name)
        for pass_class, description in default.passes:
            if pass_class is typed_passes.NativeLowering:
                pass_class = _SolverLowering
            pm.add_pass(pass_class, description)
        pm.finalize()
        return [pm]


try:                                 # numba <= 0.65 drops them itself
    from numba.core import removerefctpass  # noqa: F401
    _NUMBA_DROPS_REFCOUNTS = True
except ImportError:
    _NUMBA_DROPS_REFCOUNTS = False
_PIPELINE = _Compiler if LINKED_HELPERS or not _NUMBA_DROPS_REFCOUNTS else compiler.Compiler


# numba's `_OverloadFunctionTemplate._get_impl` (0.65.1 to 0.68.1), whose cache key
# `_impls_per_inherited_flags` narrows; another numba's keeps its own key
_GET_IMPL_SHA = "4e27d07b214ca16d6e8ed88f70d886b6b095e160d8f77f8df369dd4ed2eb3fae"


def _inherited_options():
    """The options numba's CPU target copies from the calling compile's flags into an
    implementation's (`inherit_if_not_set` in `CPUTargetOptions.finalize`), or None when
    its source cannot be read."""
    import inspect
    import re
    from numba.core import cpu
    try:
        source = inspect.getsource(cpu.CPUTargetOptions.finalize)
    except (OSError, TypeError):
        return None
    names = tuple(re.findall(r"inherit_if_not_set\(\s*[\"'](\w+)[\"']", source))
    if source.count("inherit_if_not_set") != len(names) or "ConfigStack" in source:
        return None
    return names


class _Inherited(tuple):
    """The values of the options an implementation inherits from its caller, compared as
    numba compares flags (by value) and hashed as numba hashes them (by the options alone:
    fastmath's value is not hashable)."""

    def __hash__(self):
        return len(self)


def _impls_per_inherited_flags():
    """numba's `@overload` implementations (np.empty, np.zeros, np.full, array.fill, an
    error message's formatting ...) compiled once per argument types and the caller's
    inherited options, instead of once per argument types and every flag of the caller.

    numba keys an overload template's implementation on the calling compile's whole flags
    (`ConfigStack` top), and makes and compiles a new dispatcher for each key: the
    solver's functions differ in flags that cannot change the implementation's code (the
    Python entry point, `parallel`, `nogil`, numba's `inline`), so np.empty compiled 24
    times, np.zeros 15. An implementation's compile reads its caller's flags only through
    the options the CPU target inherits (`_inherited_options`: nrt, fastmath, error_model,
    forceinline), so keyed on their values it gets the same flags, and the same code, as
    numba's key gives. Another numba's `_get_impl`, or a template of another typing
    context (not the CPU's), keeps numba's key."""
    import inspect
    from numba.core.typing import context as typing_context, templates
    cls = templates._OverloadFunctionTemplate
    original = cls._get_impl
    try:
        source = inspect.getsource(original)
    except (OSError, TypeError):
        return
    inherited = _inherited_options()
    if hashlib.sha256(source.encode()).hexdigest() != _GET_IMPL_SHA or not inherited:
        return
    cpu_context = typing_context.Context
    top_or_none = targetconfig.ConfigStack.top_or_none

    def _get_impl(self, args, kws):
        flags = top_or_none()
        if type(self.context) is not cpu_context or \
                not (flags is None or type(flags) is compiler.Flags) or \
                self.metadata.get("target", "generic") not in ("generic", "cpu"):
            return original(self, args, kws)
        inherits = None if flags is None else \
            _Inherited(getattr(flags, name) for name in inherited)
        cache_key = self.context, tuple(args), tuple(kws.items()), inherits
        try:
            return self._impl_cache[cache_key]
        except KeyError:
            pass
        return self._build_impl(cache_key, args, kws)
    _get_impl.original = original
    cls._get_impl = _get_impl


_impls_per_inherited_flags()


def _plain_options(cls):
    """Whether every option of TargetConfig subclass `cls` is read by the getter numba's
    metaclass makes (`self._values.get(name, option.default)`), which `_quick_flag_values`
    does in one pass."""
    for name in cls.options:
        getter = getattr(vars(cls).get(name) or getattr(cls, name, None), "fget", None)
        if getattr(getter, "__qualname__", "").rpartition("make_prop.<locals>.")[2] != "getter":
            return False
    return True


def _quick_flag_values():
    """numba's `TargetConfig.values` with its options' getters done in one dict comprehension:
    typing looks up each call's implementation by a key holding the compile's flags, whose
    hash and equality build that dict each time (700 000 times in a cold compile, about 5 %
    of it, twice as fast here). The same dict: a class whose options are not all read as
    numba's metaclass reads them uses numba's own method."""
    config = targetconfig.TargetConfig
    original = config.values
    if getattr(original, "__qualname__", "") != "TargetConfig.values" or \
            not isinstance(getattr(config, "options", None), MappingProxyType):
        return
    plain = {}

    def values(self):
        cls = type(self)
        fast = plain.get(cls)
        if fast is None:
            fast = plain[cls] = _plain_options(cls)
        if not fast:
            return original(self)
        get = self._values.get
        return {k: get(k, option.default) for k, option in self.options.items()}
    config.values = values


_quick_flag_values()


_NUMBA_FLAGS_HASH = targetconfig.TargetConfig.__hash__
_NUMBA_FLAGS_EQ = targetconfig.TargetConfig.__eq__


def _quick_flag_compare():
    """numba's `TargetConfig.__hash__` and `__eq__` without building the dict of all option
    values (`values()`) of either side: typing looks up each call's implementation by a key
    holding the compile's flags, and all flags hash alike (numba hashes the sorted option
    *names*), so every lookup compared flags, 300 000 times in a cold compile. The hash is
    that same number, computed once per class; two flags of one class are equal when their
    set options are (a C-level dict comparison), else compared option by option over those
    set on either side, the others being their defaults on both. A class whose options are
    not all read as numba's metaclass reads them (`_plain_options`), or whose `values` is
    its own, or numba code of another shape: numba's own methods."""
    config = targetconfig.TargetConfig
    names = ("hash", "tuple", "sorted", "values")
    if getattr(_NUMBA_FLAGS_HASH, "__code__", None) is None or \
            _NUMBA_FLAGS_HASH.__code__.co_names != names or \
            _NUMBA_FLAGS_HASH.__qualname__ != "TargetConfig.__hash__" or \
            getattr(_NUMBA_FLAGS_EQ, "__qualname__", "") != "TargetConfig.__eq__" or \
            _NUMBA_FLAGS_EQ.__code__.co_names != ("isinstance", "TargetConfig", "values",
                                                  "NotImplemented") or \
            not isinstance(getattr(config, "options", None), MappingProxyType):
        return
    values = config.values            # numba's, or `_quick_flag_values`'s: the same dict
    plain = {}

    def fast(cls):
        known = plain.get(cls)
        if known is None:
            known = plain[cls] = cls.values is values and _plain_options(cls) and \
                (hash(tuple(sorted(cls.options))),)
        return known

    def __hash__(self):
        known = fast(type(self))
        return known[0] if known else _NUMBA_FLAGS_HASH(self)

    def __eq__(self, other):
        if not isinstance(other, config):
            return NotImplemented
        cls = type(self)
        if type(other) is not cls or not fast(cls):
            return _NUMBA_FLAGS_EQ(self, other)
        mine, theirs = self._values, other._values
        if mine == theirs:
            return True
        options = cls.options
        for name in mine.keys() | theirs.keys():
            option = options.get(name)
            if option is None:             # not an option's value: as numba compares
                return _NUMBA_FLAGS_EQ(self, other)
            a, b = mine.get(name, option.default), theirs.get(name, option.default)
            if a is not b and not a == b:
                return False
        return True
    config.__hash__ = __hash__
    config.__eq__ = __eq__


_quick_flag_compare()


_NUMBA_REC_LIST_VARS = vars(ir.Inst).get("_rec_list_vars")


def _quick_list_vars():
    """numba's `Inst._rec_list_vars` (the variables an IR statement reads or writes, in
    order: every pass's use-def, liveness and dead-code analyses ask each statement for
    them, about 1.2 million times in a cold compile) without a Python call per attribute:
    numba recursed into every value of a statement's __dict__ (its location, names,
    constants ...), one call and up to five isinstance tests each, 7 million calls. Here a
    kind per class, found once, and one loop; statements and expressions whose `list_vars`
    is numba's own are walked in place, any other's `list_vars` is called, as numba does.
    The same list in the same order. numba code of another shape: numba's own."""
    inst, stmt, expr = ir.Inst, ir.Stmt, ir.Expr
    original = _NUMBA_REC_LIST_VARS
    if getattr(original, "__code__", None) is None or original.__code__.co_names != (
            "isinstance", "Var", "Inst", "list_vars", "list", "tuple", "extend",
            "_rec_list_vars", "dict", "values") or \
            stmt.list_vars.__code__.co_names != ("_rec_list_vars", "__dict__") or \
            expr.list_vars.__code__.co_names != ("_rec_list_vars", "_kws"):
        return
    stmt_list_vars, expr_list_vars = stmt.list_vars, expr.list_vars
    NONE, VAR, ATTRS, KWS, CALL, ITEMS, VALUES = range(7)
    kinds = {}

    def kind(cls):
        if issubclass(cls, ir.Var):
            k = VAR
        elif issubclass(cls, inst):
            k = CALL
            if getattr(cls, "_rec_list_vars", None) is _rec_list_vars:
                if cls.list_vars is stmt_list_vars:
                    k = ATTRS
                elif cls.list_vars is expr_list_vars:
                    k = KWS
        elif issubclass(cls, (list, tuple)):
            k = ITEMS
        elif issubclass(cls, dict):
            k = VALUES
        else:
            k = NONE
        kinds[cls] = k
        return k

    def walk(items, out):
        get = kinds.get
        for v in items:
            k = get(type(v))
            if k is None:
                k = kind(type(v))
            if k == NONE:
                continue
            if k == VAR:
                out.append(v)
            elif k == ATTRS:
                walk(v.__dict__.values(), out)
            elif k == KWS:
                walk(v._kws.values(), out)
            elif k == CALL:
                out.extend(v.list_vars())
            elif k == ITEMS:
                walk(v, out)
            else:
                walk(v.values(), out)

    def _rec_list_vars(self, val):
        out = []
        walk((val,), out)
        return out
    _rec_list_vars.__qualname__ = "_quick_list_vars.<locals>._rec_list_vars"
    inst._rec_list_vars = _rec_list_vars


_quick_list_vars()


_NUMBA_GET_MEMINFOS = vars(_numba_nrt.NRTContext).get("get_meminfos")


def _quick_meminfos():
    """numba's `NRTContext.get_meminfos` (the reference-counted pointers inside a value, for
    each incref and decref it emits) without the fields that hold none: numba emitted an
    `extractvalue` for every field of every value it counted, an array's seven and its shape's
    and strides' items (about 300 000 instructions in a cold compile, a twentieth of numba's
    own time, each named, printed, parsed by LLVM and then deleted as dead code), and looked
    for pointers inside each. A field is left out when its data model is one of numba's
    whose `traverse` can find none: a leaf (numba's default `traverse` and no meminfo of its
    own), or a struct or a homogeneous tuple of such fields, and only by numba's own
    traversals (whose getters only read the field). The same pointers in the same order;
    any other model is traversed as numba does. numba code of another shape: numba's
    own."""
    from numba.core.datamodel import models
    nrt, original = _numba_nrt, _NUMBA_GET_MEMINFOS
    base, struct, unituple = models.DataModel, models.StructModel, models.UniTupleModel
    if getattr(original, "__code__", None) is None or original.__code__.co_names != (
            "_context", "data_model_manager", "traverse", "has_nrt_meminfo",
            "get_nrt_meminfo", "append", "get_meminfos", "extend") or \
            not all(hasattr(c, "traverse") for c in (base, struct, unituple)):
        return
    leaf_traverse, struct_traverse = base.traverse, struct.traverse
    unituple_traverse, no_meminfo = unituple.traverse, base.has_nrt_meminfo
    # numba's own traversals, whose getters only read a field (`extractvalue`, `select`)
    pure = {struct_traverse, unituple_traverse, getattr(models, "OptionalModel", base).traverse}
    empty = {}

    def holds_none(model):
        """Whether numba's traverse of `model` can find no meminfo (no instruction needed)."""
        key = (model._dmm, model.fe_type)
        known = empty.get(key)
        if known is None:
            cls = type(model)
            known = False
            if cls.has_nrt_meminfo is no_meminfo:
                if cls.traverse is leaf_traverse:
                    known = True
                elif cls.traverse is struct_traverse:
                    known = all(holds_none(m) for m in model._models)
                elif cls.traverse is unituple_traverse:
                    known = holds_none(model._elem_model)
            empty[key] = known
        return known

    def get_meminfos(self, builder, ty, val):
        dmm = self._context.data_model_manager
        datamodel = dmm[ty]
        if holds_none(datamodel):      # a leaf, or numba's pure traversals all the way down
            return []
        meminfos = []
        if datamodel.has_nrt_meminfo():
            meminfos.append((ty, datamodel.get_nrt_meminfo(builder, val)))
        pure_getters = type(datamodel).traverse in pure
        for mtyp, getter in datamodel.traverse(builder):
            if not (pure_getters and holds_none(dmm[mtyp])):
                meminfos.extend(self.get_meminfos(builder, mtyp, getter(val)))
        return meminfos
    get_meminfos.__qualname__ = "_quick_meminfos.<locals>.get_meminfos"
    nrt.NRTContext.get_meminfos = get_meminfos


_quick_meminfos()


from numba.core import base as _numba_base  # noqa: E402

_NUMBA_ABI_SIZEOF = vars(_numba_base.BaseContext).get("get_abi_sizeof")


def _quick_abi_sizes():
    """numba's `BaseContext.get_abi_sizeof` remembered per LLVM type and data layout: llvmlite
    answers it by printing a module holding a global of the type and having LLVM parse it
    (`Type.get_abi_size`), and numba's lowering asks it for every user variable it allocates
    (for debug information it then drops), about 5 000 times in a cold compile, a third of a
    millisecond each. A literal type (no `%` in its text: no identified struct, whose body
    is its context's) has one size per data layout, so it is asked once; any other type as
    numba asks. numba code of another shape: numba's own."""
    from llvmlite import ir as llvm_ir
    original = _NUMBA_ABI_SIZEOF
    if getattr(original, "__code__", None) is None or original.__code__.co_names != (
            "isinstance", "llvmir", "Type", "get_abi_size", "target_data"):
        return
    sizes = {}                         # (id of the target data, type's text): (size, it)

    def get_abi_sizeof(self, ty):
        assert isinstance(ty, llvm_ir.Type), "Expected LLVM type"
        text = str(ty)
        if "%" in text:
            return original(self, ty)
        target_data = self.target_data
        known = sizes.get((id(target_data), text))
        if known is None:              # the target data kept: its id stays its own
            known = sizes[id(target_data), text] = (ty.get_abi_size(target_data), target_data)
        return known[0]
    get_abi_sizeof.__qualname__ = "_quick_abi_sizes.<locals>.get_abi_sizeof"
    _numba_base.BaseContext.get_abi_sizeof = get_abi_sizeof


_quick_abi_sizes()


def _numba_lock_callbacks():
    """numba's callbacks on llvmlite's LLVM lock (`_initialize_llvm_lock_event`: an event
    `numba:llvm_lock` at every acquire and release), or None."""
    from llvmlite.binding import ffi
    lock = getattr(getattr(ffi, "lib", None), "_lock", None)
    for pair in getattr(lock, "_cblist", ()):
        if [getattr(f, "__qualname__", "") for f in pair] == [
                "_initialize_llvm_lock_event.<locals>.enter_fn",
                "_initialize_llvm_lock_event.<locals>.exit_fn"]:
            return lock, pair
    return None


_NUMBA_LOCK_CALLBACKS = _numba_lock_callbacks()


def _quick_lock_events():
    """numba's `numba:llvm_lock` events without an Event object and a broadcast each: every
    call into LLVM takes llvmlite's lock, and numba's callbacks on it start and end an event
    (about 215 000 of each in a cold compile), which the timers numba installs around each
    compile (`TimingListener`, one per compile under way) turn into its `llvm_lock`
    seconds. When every listener of the event is numba's own timer, its `on_start` and
    `on_end` are called directly, as numba's broadcast would call them; any other listener
    (a recorder, a user's) gets numba's own events. numba code of another shape: numba's
    own."""
    from numba.core import event
    found = _NUMBA_LOCK_CALLBACKS
    timer, listener = getattr(event, "TimingListener", None), getattr(event, "Listener", None)
    if found is None or timer is None or \
            found[1][0].__code__.co_names != ("event", "start_event") or \
            found[1][1].__code__.co_names != ("event", "end_event") or \
            event.start_event.__code__.co_names != ("Event", "EventStatus", "START",
                                                    "broadcast") or \
            event.end_event.__code__.co_names != ("Event", "EventStatus", "END",
                                                  "broadcast") or \
            timer.notify is not listener.notify or \
            not isinstance(getattr(event, "_registered", None), dict):
        return
    lock, (numba_enter, numba_exit) = found
    kind = "numba:llvm_lock"
    registered = event._registered

    def timers_only(listeners):
        for one in listeners:
            if type(one) is not timer:
                return False
        return True

    def enter_fn():
        listeners = registered.get(kind)
        if listeners and timers_only(listeners):
            for one in listeners:
                one.on_start(None)
        elif listeners:
            numba_enter()

    def exit_fn():
        listeners = registered.get(kind)
        if listeners and timers_only(listeners):
            for one in listeners:
                one.on_end(None)
        elif listeners:
            numba_exit()
    enter_fn.__qualname__ = "_quick_lock_events.<locals>.enter_fn"
    exit_fn.__qualname__ = "_quick_lock_events.<locals>.exit_fn"
    index = lock._cblist.index((numba_enter, numba_exit))
    lock._cblist[index] = (enter_fn, exit_fn)


_quick_lock_events()


from numba.core import utils as _numba_utils  # noqa: E402

_NUMBA_TEMPLATE_ORDER = _numba_utils.order_by_target_specificity


def _quick_template_order():
    """numba's `order_by_target_specificity` (the typing templates of a function usable on
    the target, most specific first) remembered per target and list of templates: typing
    computed it again for every call it resolved (each `a + b`, `a[i]`, `len(a)` ...), about
    90 000 times in a cold compile, each reading every template's metadata and sorting. The
    order depends on the templates (classes, whose metadata names their target) and the
    target registry, which only grows: the same list in the same order. A failure (no
    usable template) is raised as numba raises it, each time. numba code of another shape:
    numba's own."""
    from numba.core.typing import context as typing_context
    original = _NUMBA_TEMPLATE_ORDER
    if getattr(original, "__code__", None) is None or original.__code__.co_names != (
            "numba.core.target_extension", "target_registry", "enumerate", "getattr", "get",
            "inherits_from", "append", "sorted", "numba.core.errors", "UnsupportedError") or \
            typing_context.order_by_target_specificity is not original:
        return
    orders = {}

    def order_by_target_specificity(target, templates, fnkey=''):
        try:
            key = target, tuple(templates)
            known = orders.get(key)
        except TypeError:              # something unhashable: as numba does
            return original(target, templates, fnkey)
        if known is None:
            known = orders[key] = tuple(original(target, templates, fnkey))
        return list(known)
    order_by_target_specificity.__qualname__ = \
        "_quick_template_order.<locals>.order_by_target_specificity"
    _numba_utils.order_by_target_specificity = order_by_target_specificity
    typing_context.order_by_target_specificity = order_by_target_specificity


_quick_template_order()


from llvmlite.ir import _utils as _llvm_ir_utils  # noqa: E402

_LLVMLITE_REGISTER = vars(_llvm_ir_utils.NameScope).get("register")


def _quick_names():
    """llvmlite's `NameScope.register` (each instruction's name, made unique in its
    function: 700 000 in a cold compile) in one method: llvmlite's calls `deduplicate`,
    which calls `is_used` once or more. The same names in the same order (the same
    counters per base name); a subclass's scope registers as llvmlite does. llvmlite code
    of another shape: llvmlite's own."""
    scope = _llvm_ir_utils.NameScope
    original = _LLVMLITE_REGISTER
    if getattr(original, "__code__", None) is None or original.__code__.co_names != (
            "deduplicate", "is_used", "DuplicatedNameError", "_useset", "add") or \
            scope.deduplicate.__code__.co_names != ("is_used", "_basenamemap", "format") or \
            scope.is_used.__code__.co_names != ("_useset",):
        return
    duplicated = _llvm_ir_utils.DuplicatedNameError

    def register(self, name, deduplicate=False):
        if type(self) is not scope:
            return original(self, name, deduplicate)
        used = self._useset
        if name in used:
            if not deduplicate:
                raise duplicated(name)
            counters, basename = self._basenamemap, name
            while name in used:
                ident = counters[basename] + 1
                counters[basename] = ident
                name = "{0}.{1}".format(basename, ident)
        used.add(name)
        return name
    register.__qualname__ = "_quick_names.<locals>.register"
    scope.register = register


_quick_names()


from numba.np import numpy_support as _numba_numpy  # noqa: E402

_NUMBA_UFUNC_LOOP = _numba_numpy.ufunc_find_matching_loop


def _quick_ufunc_loops():
    """numba's `ufunc_find_matching_loop` (which of a NumPy ufunc's loops takes the given
    argument types, searched as NumPy searches: every loop's letters cast-checked in
    turn) remembered per ufunc and argument types: numba's ufunc typing templates, tried
    for every arithmetic operator typed, searched it about 25 000 times in a cold compile.
    A NumPy ufunc's loops are fixed, so the answer is too: the same loop, with lists of its
    own each time (a caller may change them); an error raised as numba raises it, each
    time. Any other ufunc (numba's own DUFunc, which gains loops as it compiles) is
    searched as numba searches. numba code of another shape: numba's own."""
    import inspect
    import numpy as np
    from numba.core.typing import npydecl
    from numba.np import npyimpl
    original = _NUMBA_UFUNC_LOOP
    spec = getattr(_numba_numpy, "UFuncLoopSpec", None)
    try:
        names = list(inspect.signature(original).parameters)
    except (TypeError, ValueError):
        return
    if names != ["ufunc", "arg_types"] or getattr(spec, "_fields", None) != (
            "inputs", "outputs", "ufunc_sig") or \
            getattr(npydecl, "ufunc_find_matching_loop", None) is not original or \
            getattr(npyimpl, "ufunc_find_matching_loop", None) is not original:
        return
    loops, ufunc_type = {}, np.ufunc

    def ufunc_find_matching_loop(ufunc, arg_types):
        if type(ufunc) is not ufunc_type:
            return original(ufunc, arg_types)
        try:
            key = ufunc, tuple(arg_types)
            known = loops.get(key, loops)
        except TypeError:              # an unhashable type: as numba does
            return original(ufunc, arg_types)
        if known is loops:
            known = loops[key] = original(ufunc, arg_types)
        if known is None:
            return None
        return spec(list(known.inputs), list(known.outputs), known.ufunc_sig)
    ufunc_find_matching_loop.__qualname__ = \
        "_quick_ufunc_loops.<locals>.ufunc_find_matching_loop"
    for module in (_numba_numpy, npydecl, npyimpl):
        module.ufunc_find_matching_loop = ufunc_find_matching_loop


_quick_ufunc_loops()


class _Kernel(CPUDispatcher):
    """numba's CPU dispatcher, typing calls from other kernels with plain (non-literal)
    argument types, cached by source hash."""

    def __init__(self, py_func, wrapper, inline, outline=False, nogil=False, parallel=False,
                 always=False, separate=False):
        if separate and SEPARATE_STAGES:
            _SEPARATE.add(py_func)
        outline = outline or separate
        # no C entry point (numba's cfunc wrapper, for first-class function values, which
        # the solver never makes): generating it was 6 % of a cold compile
        options = {"nopython": True, "no_cpython_wrapper": not wrapper,
                   "no_cfunc_wrapper": True}
        if nogil:
            options["nogil"] = True
        if parallel:
            options["parallel"] = True
        if inline:
            options["inline"] = "always"
        else:
            # always set: numba's CPU target gives a function without it its caller's
            # forceinline (`inherit_if_not_set`), so a long or outlined helper first
            # compiled from a short one was inlined everywhere (docs/performance.md); a
            # separate stage's (an outlined one: False) is part of the symbol a cached
            # caller names
            options["forceinline"] = not wrapper and not outline and not parallel and \
                (always or _short(py_func))
        super().__init__(py_func, targetoptions=options, pipeline_class=_PIPELINE)
        if _SourceHashLocator.from_function(py_func, py_func.__code__.co_filename):
            self._cache = _KernelCache(py_func)
        else:                         # a kernel defined outside the solver (a test's)
            try:
                self._cache = _OtherCache(py_func)
            except RuntimeError:      # no file to cache beside (<string>)
                pass

    def compile(self, sig):
        with global_compiler_lock:
            _choose_libraries(self.targetctx.codegen())
            _COMPILING[0] += 1
            try:
                return super().compile(sig)
            finally:
                _COMPILING[0] -= 1

    def add_overload(self, cres):
        super().add_overload(cres)
        if self.py_func in _SEPARATE and isinstance(cres.library, _KernelLibrary):
            module = self.py_func.__module__          # package-relative: ".step"
            if module.startswith(PACKAGE + "."):
                module = module[len(PACKAGE):]
            cres.library.stage = (cres.fndesc.mangled_name, module, self.py_func.__qualname__,
                                  tuple(cres.signature.args))

    def get_call_template(self, args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


class _Helper(_Kernel):
    def __call__(self, *args, **kws):
        raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} is a @helper "
                        f"(callable from kernels only); call it from a @kernel or make it one")


def kernel(py_func=None, *, inline=False, nogil=False):
    """A numba kernel that Python code calls (compiled on first call, cached on disk).
    inline=True: see `helper`. nogil=True releases the GIL while it runs (World.step runs
    batches of islands in threads)."""
    if py_func is None:
        return lambda f: _Kernel(f, wrapper=True, inline=inline, nogil=nogil)
    return _Kernel(py_func, wrapper=True, inline=inline, nogil=nogil)


def helper(py_func=None, *, inline=False, outline=False, always=False, parallel=False,
           separate=False):
    """A numba function that only kernels call (no Python entry point; cached on disk).

    inline=True inlines it into its callers when they are typed (numba's IR inlining), for
    one-line adapters that unpack argument tuples: they cost a compile of their own and a
    second optimisation of everything they call otherwise. Nothing bigger: an inlined
    body is typed again in every caller.

    outline=True keeps a short helper a real call instead of inlining it (the step's stages,
    called once per substep); always=True inlines a longer one (LLVM's forceinline: the
    body of a hot loop kept in a function of its own).

    parallel=True compiles its `numba.prange` loops to run on numba's threads (colours.py:
    a big island's stages). Only the calling thread of a World step may call one (numba's
    workqueue threading layer takes one caller at a time)."""
    def make(f):
        return _Helper(f, wrapper=False, inline=inline, outline=outline, always=always,
                       parallel=parallel, separate=separate)
    return make if py_func is None else make(py_func)
