"""Prints a linalg module whose @model reaches its work through calls
(inline-calls.test):
  call_graph.py chain N  @model calls @f0; each @fi applies exp, calls @fi+1
  call_graph.py dag N    N levels, each function calling the next twice"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
t = "tensor<4xf32>"


def call(result, callee, arg):
    return f"  {result} = func.call @{callee}({arg}) : ({t}) -> {t}"


def exp(result, arg):
    return f"  {result} = linalg.exp ins({arg} : {t}) outs({arg} : {t}) -> {t}"


print(f"func.func @model(%x: {t}) -> {t} {{")
print(call("%y", "f0", "%x"))
print(f"  return %y : {t}\n}}")
for i in range(n):
    print(f"func.func private @f{i}(%x: {t}) -> {t} {{")
    last = i + 1 == n
    if kind == "chain":
        print(exp("%e", "%x"))
        print(f"  return %e : {t}" if last else
              call("%y", f"f{i + 1}", "%e") + f"\n  return %y : {t}")
    else:
        if last:
            print(exp("%b", "%x"))
        else:
            print(call("%a", f"f{i + 1}", "%x"))
            print(call("%b", f"f{i + 1}", "%a"))
        print(f"  return %b : {t}")
    print("}")
