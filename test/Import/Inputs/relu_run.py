"""Prints a dsm function applying N ReLUs in a row (fuse-graph-long-chain.test)."""
import sys

n = int(sys.argv[1])
print("func.func @run(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {")
previous = "%x"
for i in range(n):
    print(f'  %r{i} = dsm.relu {previous} : tensor<2x8xf32> loc("r{i}")')
    previous = f"%r{i}"
print(f"  return {previous} : tensor<2x8xf32>")
print("}")
