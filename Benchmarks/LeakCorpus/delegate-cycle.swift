// delegate-cycle.swift: LEAKY.
// The classic strong delegate: `Downloader.delegate` is a strong
// `DownloaderDelegate?` existential, and the delegate (`DownloadController`)
// owns the downloader in `downloader`:
// DownloadController -> Downloader -> DownloadController. Three pairs are made
// in a loop and dropped. A global `EventLog` object stays reachable (not a leak).
//
// EXPECT-LEAKED: DownloadController=3 Downloader=3
// EXPECT-FIELDS: delegate downloader

protocol DownloaderDelegate: AnyObject {
    func downloader(_ downloader: Downloader, didFinish bytes: Int)
}

final class EventLog {
    var events: [String] = []
}

let eventLog = EventLog()

final class Downloader {
    let url: String
    var delegate: DownloaderDelegate?  // should be weak

    init(url: String) { self.url = url }

    func run() { delegate?.downloader(self, didFinish: url.utf8.count) }
}

final class DownloadController: DownloaderDelegate {
    let downloader: Downloader
    var received = 0

    init(url: String) {
        downloader = Downloader(url: url)
        downloader.delegate = self
    }

    func downloader(_ downloader: Downloader, didFinish bytes: Int) {
        received += bytes
        eventLog.events.append("finished \(downloader.url)")
    }
}

@inline(never)
func download(_ index: Int) {
    let controller = DownloadController(url: "https://example.com/\(index)")
    controller.downloader.run()
}

for index in 0..<3 {
    download(index)
}
print("delegate-cycle: \(eventLog.events.count) downloads")
