// Memory that is not in Swift objects: 200 MB allocated with malloc in small blocks, touched,
// then freed, all but one block allocated after them, so that malloc keeps the freed memory in
// its arena (the arena's top cannot shrink below a block in use). One Swift object survives.
#if canImport(Glibc)
  import Glibc
#endif

final class Survivor {
  var count = 1
}

let blockSize = 2048
let blockCount = (200 << 20) / blockSize
var blocks: [UnsafeMutableRawPointer] = []
blocks.reserveCapacity(blockCount)
for _ in 0..<blockCount {
  let block = malloc(blockSize)!
  memset(block, 0x5A, blockSize)
  blocks.append(block)
}
let keeper = malloc(64)!
for block in blocks { free(block) }
blocks = []
let survivor = Survivor()
print("freed \(blockCount) blocks of \(blockSize) bytes; \(survivor.count) object kept")
withExtendedLifetime(keeper) {}
