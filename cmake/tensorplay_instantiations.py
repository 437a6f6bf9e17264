#!/usr/bin/env python3
"""Regenerates the two lists behind the separately compiled mode (tensorplay::compiled,
TENSORPLAY_SEPARATE_COMPILATION=1), both read from the headers' source:

  include/tensorplay/compiled/declarations.hpp  what a user translation unit sees of the ops,
      autograd and nn layers: a declaration (with its default arguments) of every public
      `template <class = void>` function those headers define. The umbrella header includes it
      in place of the definitions, so such a file parses declarations only.
  include/tensorplay/compiled/instantiations.inc  every template the library instantiates once:
      those functions, every `template <class = void>` member of Tensor (and item() for each
      element type), the public deferred templates of core/, and the autograd node classes.

    cmake/tensorplay_instantiations.py [--check]

--check compares instead of writing and fails when a file is out of date (a CTest test runs
it). The parser knows this code base's layout, which CONVENTIONS.md fixes: namespaces opened
`namespace x {` and closed `}  // namespace x` at column 0, and a deferred template written
`template <class = void>` on its own line, at column 0 for free functions and two columns in for
Tensor's members.
"""
import os
import re
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "include")
OUT_DECL = os.path.join(INCLUDE, "tensorplay", "compiled", "declarations.hpp")
OUT_INST = os.path.join(INCLUDE, "tensorplay", "compiled", "instantiations.inc")
GROUPS = 4  # translation units of the library (src/instantiate_<n>.cpp)
DEFERRED = "template <class = void>"
# Every header whose templates are declared includes this first: it refuses to be included
# after the declarations (their default arguments would be given twice).
GUARD_PATH = "tensorplay/compiled/definitions.hpp"
GUARD = f"#include <{GUARD_PATH}>"
# Public functions whose signatures need types that user translation units do not see (the
# device kernels' interface): instantiated in the library, not declared to users.
INTERNAL = {"pointwise_on_device"}
# The element types item<T>() is instantiated for (core/dtype.hpp's table).
ITEM_TYPES = ["bool", "uint8_t", "int8_t", "int16_t", "int32_t", "int64_t", "Half", "BFloat16",
              "float", "double"]


def split_top(text, sep=","):
    """Splits at `sep` outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def close_paren(text, start):
    """Index of the parenthesis closing the one at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise ValueError(f"unbalanced parentheses: {text}")


def without_defaults(signature):
    """The signature with its parameters' default arguments removed."""
    m = re.search(r"(operator\s*(?:\(\)|[^\s(]+)|\w+)\s*\(", signature)
    open_at = signature.index("(", m.end() - 1)
    close_at = close_paren(signature, open_at)
    params = [p.split("=")[0].rstrip() if "=" in p and "==" not in p else p.rstrip()
              for p in split_top(signature[open_at + 1:close_at])]
    params = [re.sub(r"\s+", " ", p).strip() for p in params]
    return m, signature[:open_at], ", ".join(p for p in params if p), signature[close_at + 1:]


def instantiation(signature, scope=""):
    """`Ret scope::name<>(params) quals` for an explicit instantiation of the signature."""
    m, head, params, tail = without_defaults(signature)
    head = re.sub(r"\b(static|inline|constexpr)\s+", "", head)
    name = m.group(1)
    ret = head[:head.rindex(name)].strip()
    tail = re.sub(r"\s+", " ", tail).strip()
    space = " " if name[-1] in "<>" else ""  # operator<< <>, not operator<<<>
    return re.sub(r"\s+", " ", f"{ret} {scope}{name}{space}<>({params}) {tail}").strip()


def signature_at(lines, j, stop):
    """The declaration starting at lines[j], up to its body (`{`) or, for stop=';', its end."""
    sig = []
    while True:
        line = lines[j].split("//")[0].rstrip()  # a trailing comment is not code
        if stop == ";" and line.rstrip().endswith(";"):
            sig.append(line.rstrip()[:-1])
            return "\n".join(sig), j
        body = line.find(") {")
        if body < 0 and stop == "{" and line.rstrip().endswith("{"):
            body = len(line.rstrip()) - 2
        if body >= 0 and stop == "{":
            sig.append(line[:body + 1])
            return "\n".join(sig), j
        sig.append(line)
        j += 1


def macros(paths):
    """{name: (params, body lines)} for the function-like macros the headers define."""
    found = {}
    for path in paths:
        lines = open(path).read().split("\n")
        for i, line in enumerate(lines):
            m = re.match(r"^#define (\w+)\(([^)]*)\)(.*)", line)
            if not m:
                continue
            body, j = [m.group(3)], i
            while lines[j].rstrip().endswith("\\"):
                body[-1] = body[-1].rstrip()[:-1]
                j += 1
                body.append(lines[j])
            found[m.group(1)] = ([p.strip() for p in m.group(2).split(",")], body)
    return found


def expand(body, params, args):
    """The macro body with its parameters replaced (## pastes, # is not used in signatures)."""
    out = []
    for line in body:
        line = re.sub(r"\s*##\s*", "##", line)
        for p, a in zip(params, args):
            if p != "...":  # __VA_ARGS__ is never part of a signature
                line = re.sub(rf"\b{re.escape(p)}\b", lambda _: a.strip(), line)
        out.append(line.replace("##", ""))
    return out


def scan_lines(lines, ns, known, top):
    """(namespaces, kind, text) for each public deferred template at namespace scope in lines
    (a header, or a macro's expansion when top is False), expanding the macros in `known`."""
    found, i, depth = [], 0, 0
    ns = list(ns)
    detail_at = []  # brace depths at which a macro opened `namespace detail {`
    while i < len(lines):
        line = lines[i]
        if top:
            m = re.match(r"^namespace ([\w:]+) \{(.*)", line)
            if m and "}" not in m.group(2):
                ns.append(m.group(1))
            m = re.match(r"^\}  // namespace ([\w:]+)", line)
            if m:
                while ns and ns.pop() != m.group(1):
                    pass
        elif line.strip() == "namespace detail {":
            detail_at.append(depth)
        public = not detail_at and not any("detail" in n for n in ns)
        call = re.match(r"^\s*(TENSORPLAY_\w+)\((.*)", line)
        if call and call.group(1) in known and (top is False or line.startswith("TENSORPLAY_")):
            text, j = line[line.index("(") + 1:], i
            while text.count("(") >= text.count(")"):
                j += 1
                text += "\n" + lines[j]
            args = split_top(text[:close_paren("(" + text, 0) - 1])
            params, body = known[call.group(1)]
            if public:
                found += scan_lines(expand(body, params, args), ns, known, False)
            i = j + 1
            continue
        if line.strip() == DEFERRED and public and (not top or line == DEFERRED):
            nxt = lines[i + 1].strip()
            c = re.match(r"^(?:struct|class) (\w+)", nxt)
            if c:
                found.append((tuple(ns), "class", c.group(1)))
            else:
                sig, i = signature_at(lines, i + 1, "{")
                depth += sig.count("{") - sig.count("}") + 1
                if not re.match(r"^\s*(auto|decltype)", sig):
                    found.append((tuple(ns), "function", sig))
                i += 1
                continue
        if not top:
            depth += line.count("{") - line.count("}")
            if detail_at and depth <= detail_at[-1]:
                detail_at.pop()
        i += 1
    return found


def scan(path, known):
    return scan_lines(open(path).read().split("\n"), (), known, True)


def members(path):
    """Explicit instantiations of the deferred member templates of the classes defined at
    column 0 in path (Tensor's in core/tensor.hpp, the iteration engine's)."""
    lines = open(path).read().split("\n")
    out, cls, i = [], None, 0
    while i < len(lines):
        m = re.match(r"^(?:class|struct) (\w+)(?: final)? .*\{$", lines[i])
        if m:
            cls = m.group(1)
        elif lines[i] == "};":
            cls = None
        elif cls and lines[i] == "  " + DEFERRED:
            sig, i = signature_at(lines, i + 1, ";")
            out.append(instantiation(sig.strip(), cls + "::"))
        i += 1
    return out


def headers(layer):
    base = os.path.join(INCLUDE, "tensorplay", layer)
    for root, _, files in sorted(os.walk(base)):
        for f in sorted(files):
            if f.endswith(".hpp"):
                yield os.path.join(root, f)


def closure(path, seen=None):
    """path and every tensorplay header it includes, transitively."""
    seen = set() if seen is None else seen
    if path in seen:
        return seen
    seen.add(path)
    for inc in re.findall(r"^#include <(tensorplay/[\w/]+\.hpp)>", open(path).read(), re.M):
        closure(os.path.join(INCLUDE, inc), seen)
    return seen


def in_namespaces(ns, text):
    return "".join(f"namespace {n} {{\n" for n in ns) + text + "".join(
        f"}}  // namespace {n}\n" for n in reversed(ns))


def generate():
    decls, insts, unguarded = [], [], []
    paths = list(headers("ops")) + list(headers("autograd")) + list(headers("nn"))
    public = closure(os.path.join(INCLUDE, "tensorplay", "compiled", "public_api.hpp"))
    known = macros(paths)
    for path in headers("core"):
        for ns, kind, text in scan(path, {}):
            if kind == "function":
                insts.append((ns, instantiation(text), False))
    for path in paths:
        rel = os.path.relpath(path, INCLUDE)
        for ns, kind, text in scan(path, known):
            if kind == "class":
                insts.append((ns, f"class {text}<void>", True))
                continue
            name = without_defaults(text)[0].group(1)
            insts.append((ns, instantiation(text), name in INTERNAL))
            if name not in INTERNAL and path not in public:
                decls.append((ns, rel, f"{DEFERRED}\n{text.strip()};\n"))
        if any(r == rel for _, r, _ in decls) and GUARD not in open(path).read():
            unguarded.append(rel)
    for path in (os.path.join(INCLUDE, "tensorplay", "core", "tensor.hpp"),
                 os.path.join(INCLUDE, "tensorplay", "ops", "tensor_iterator.hpp")):
        # The engine's members are internal: a declarations-only file does not see its classes.
        internal = path.endswith("tensor_iterator.hpp")
        insts += [(("tensorplay",), m, internal) for m in members(path)]
    insts.append((("tensorplay",), "Scalar Tensor::item<0>() const", False))
    insts += [(("tensorplay",), f"{t} Tensor::item<{t}>() const", False) for t in ITEM_TYPES]

    decl_out = [
        "// Generated by cmake/tensorplay_instantiations.py from the ops, autograd and nn",
        "// headers. Do not edit; regenerate (see the script). In separately compiled mode the",
        "// umbrella header includes this in place of those headers: every public deferred",
        "// template they define, declared with its default arguments, and defined once in",
        "// tensorplay::compiled.",
        "#pragma once", "",
        "#include <tensorplay/compiled/public_api.hpp>", ""]
    last = None
    for ns, rel, text in decls:
        if rel != last:
            decl_out.append(f"// ---- {rel}")
            last = rel
        decl_out.append(in_namespaces(ns, text).rstrip("\n"))
    inst_out = [
        "// Generated by cmake/tensorplay_instantiations.py from the headers: the templates that",
        "// tensorplay::compiled instantiates. Do not edit; regenerate (see the script).",
        "// TENSORPLAY_INSTANTIATE(group, namespace, declaration): group is the library TU that",
        "// owns it; the declaration is written inside namespace `namespace`. The _INTERNAL form",
        "// marks what a declarations-only file does not see (node classes, the engine)."]
    for ns, text, internal in insts:
        group = zlib.crc32(text.encode()) % GROUPS
        macro = "TENSORPLAY_INSTANTIATE_INTERNAL" if internal else "TENSORPLAY_INSTANTIATE"
        inst_out.append(f"{macro}({group}, {'::'.join(ns)}, {text})")
    if unguarded:
        sys.exit("these headers define declared templates but do not include "
                 f"<{GUARD_PATH}> first: " + ", ".join(unguarded))
    return "\n".join(decl_out) + "\n", "\n".join(inst_out) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for path, text in zip((OUT_DECL, OUT_INST), generate()):
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            continue
        if check:
            stale.append(os.path.relpath(path, ROOT))
        else:
            with open(path, "w") as f:
                f.write(text)
    if stale:
        sys.exit("out of date (run cmake/tensorplay_instantiations.py): " + ", ".join(stale))


if __name__ == "__main__":
    main()
