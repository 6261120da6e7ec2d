// Memory that grows outside Swift objects: four rounds, 0.6 s apart, each mallocs 40 MB in blocks
// twice the size of the round before and frees seven blocks of every eight, so that the holes
// left are too small for the next round's blocks and malloc keeps them. The Swift objects stay
// the same. Runs 2.6 s in all.
#if canImport(Glibc)
  import Glibc
#endif

final class Survivor {
  var count = 1
}

let survivor = Survivor()
var kept: [UnsafeMutableRawPointer] = []
var checksum = 0
for round in 0..<4 {
  usleep(round == 0 ? 100_000 : 600_000)
  let blockSize = 1024 << round
  var blocks: [UnsafeMutableRawPointer] = []
  for _ in 0..<((40 << 20) / blockSize) {
    let block = malloc(blockSize)!
    memset(block, 0x5A, blockSize)
    blocks.append(block)
  }
  for (index, block) in blocks.enumerated() {
    checksum ^= Int(bitPattern: block) &+ Int(block.load(fromByteOffset: blockSize - 1, as: UInt8.self))
    if index % 8 == 7 { kept.append(block) } else { free(block) }
  }
}
usleep(700_000)
print("kept \(kept.count) blocks (checksum \(checksum)) and \(survivor.count) object")
