// Memory that is not in Swift objects: 200 MB allocated with malloc in small blocks, touched,
// then freed but for the last block, the one nearest the arena's top, so that the arena cannot
// shrink and malloc keeps the freed memory. One Swift object survives.
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
// Read back with their addresses, so that an optimizer keeps every block and its bytes.
let checksum = blocks.reduce(0) { $0 ^ Int(bitPattern: $1) &+ Int($1.load(fromByteOffset: blockSize - 1, as: UInt8.self)) }
let kept = blocks.removeLast()
for block in blocks { free(block) }
blocks = []
let survivor = Survivor()
print("freed \(blockCount - 1) blocks of \(blockSize) bytes (checksum \(checksum)); kept \(kept) and \(survivor.count) object")
