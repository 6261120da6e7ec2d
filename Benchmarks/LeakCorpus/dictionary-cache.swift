// dictionary-cache.swift: LEAKY.
// An `ImageCache` keeps `CacheEntry` values in a `[String: CacheEntry]`
// dictionary, and every entry keeps a strong back reference `owner` to its
// cache: ImageCache -> entries dictionary -> CacheEntry -> ImageCache.
// Three caches with two entries each are filled and dropped. A global
// statistics object stays reachable (not a leak).
//
// EXPECT-LEAKED: ImageCache=3 CacheEntry=6
// EXPECT-FIELDS: entries owner

final class Statistics {
    var stores = 0
}

let statistics = Statistics()

final class CacheEntry {
    let key: String
    let bytes: [UInt8]
    var owner: ImageCache?  // should be weak or unowned

    init(key: String, bytes: [UInt8], owner: ImageCache) {
        self.key = key
        self.bytes = bytes
        self.owner = owner
    }
}

final class ImageCache {
    let name: String
    var entries: [String: CacheEntry] = [:]

    init(name: String) { self.name = name }

    func store(_ key: String, size: Int) {
        entries[key] = CacheEntry(key: key, bytes: [UInt8](repeating: 7, count: size), owner: self)
        statistics.stores += 1
    }
}

@inline(never)
func fillCache(_ index: Int) {
    let cache = ImageCache(name: "cache-\(index)")
    cache.store("thumbnail", size: 64)
    cache.store("full", size: 256)
}

for index in 0..<3 {
    fillCache(index)
}
print("dictionary-cache: \(statistics.stores) stores")
