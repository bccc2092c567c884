import Foundation
import Library
import Logging
import Synchronization
import Testing

/// `auto_update`: inotify events become `update` requests for the directory that changed, after a quiet spell.
@Suite struct DirectoryWatcherTests {
    final class Requests: Sendable {
        let uris = Mutex<[String]>([])
    }

    func makeTree() throws -> String {
        let root = NSTemporaryDirectory() + "nosignal-watch-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root + "/Artist/Album", withIntermediateDirectories: true)
        return root
    }

    /// Generous: under a loaded CI machine inotify delivery and the flush thread can lag by seconds.
    func wait(_ requests: Requests, for expected: [String], timeout: Double = 20) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let seen = requests.uris.withLock { $0 }
            if Set(expected).isSubset(of: Set(seen)) { return seen }
            usleep(20_000)
        }
        return requests.uris.withLock { $0 }
    }

    @Test func aNewFileUpdatesItsDirectory() throws {
        let root = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let requests = Requests()
        let watcher = try #require(DirectoryWatcher(musicDirectory: root, delay: 0.2, logger: Logger(label: "test")) {
            uri in requests.uris.withLock { $0.append(uri) }
        })
        defer { watcher.stop() }
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/Artist/Album/song.flac"))
        #expect(wait(requests, for: ["Artist/Album"]) == ["Artist/Album"])
    }

    @Test func aNewDirectoryIsWatchedToo() throws {
        let root = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let requests = Requests()
        let watcher = try #require(DirectoryWatcher(musicDirectory: root, delay: 0.2, logger: Logger(label: "test")) {
            uri in requests.uris.withLock { $0.append(uri) }
        })
        defer { watcher.stop() }
        try FileManager.default.createDirectory(atPath: root + "/New", withIntermediateDirectories: true)
        #expect(wait(requests, for: [""]).contains(""))
        requests.uris.withLock { $0 = [] }
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/New/song.ogg"))
        #expect(wait(requests, for: ["New"]).contains("New"))
    }

    @Test func hiddenFilesAndDepthAreRespected() throws {
        let root = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let requests = Requests()
        let watcher = try #require(DirectoryWatcher(musicDirectory: root, depth: 1, delay: 0.2,
                                                    logger: Logger(label: "test")) { uri in
            requests.uris.withLock { $0.append(uri) }
        })
        defer { watcher.stop() }
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/.hidden"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/Artist/Album/deep.flac"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/Artist/shallow.flac"))
        let seen = wait(requests, for: ["Artist"])
        #expect(seen == ["Artist"])
    }
}
