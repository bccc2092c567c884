import Foundation
import Glibc
import Logging
import Synchronization

/// `auto_update`: watches the music directory with inotify and, once a changed directory has been quiet for a
/// moment, asks for an `update` of it — MPD's `InotifyUpdate` (which waits 5 s; editors and taggers write a
/// file in several steps). New directories are watched as they appear, down to `auto_update_depth` levels.
public final class DirectoryWatcher: Sendable {
    private struct State {
        var watches: [Int32: String] = [:]
        /// Changed directories (relative URIs) and when they last changed.
        var dirty: [String: Double] = [:]
        var stopped = false
    }

    private let root: String
    private let depth: Int
    private let delay: Double
    private let descriptor: Int32
    /// Wakes the read thread for `stop()`: closing a descriptor does not interrupt a `read` blocked on it in
    /// another thread, and a number closed under it could be reused by an unrelated file.
    private let wakeup: (read: Int32, write: Int32)
    private let state = Mutex(State())
    private let update: @Sendable (String) -> Void
    private let logger: Logger

    /// `update` receives the relative URI of a directory to rescan ("" for the root).
    public init?(musicDirectory: String, depth: Int? = nil, delay: Double = 5, logger: Logger,
                 update: @escaping @Sendable (String) -> Void) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else {
            logger.error("auto_update: inotify is not available: \(String(cString: strerror(errno)))")
            return nil
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            logger.error("auto_update: cannot make a pipe: \(String(cString: strerror(errno)))")
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wakeup = (ends[0], ends[1])
        root = musicDirectory.hasSuffix("/") ? String(musicDirectory.dropLast()) : musicDirectory
        self.depth = depth ?? Int.max
        self.delay = delay
        self.update = update
        self.logger = logger
        addTree("", level: 0)
        let thread = Thread { [self] in readLoop() }
        thread.start()
        let flusher = Thread { [self] in flushLoop() }
        flusher.start()
    }

    /// The read thread closes the descriptors when it sees the wake-up, so no number is closed under it.
    public func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { _ = write(wakeup.write, [UInt8(1)], 1) }
    }

    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO
                                     | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Watches `uri` and the directories below it (hidden ones skipped, like the scanner).
    private func addTree(_ uri: String, level: Int) {
        guard level <= depth else { return }
        let path = uri.isEmpty ? root : root + "/" + uri
        let watch = inotify_add_watch(descriptor, path, Self.mask)
        guard watch >= 0 else {
            logger.warning("auto_update: cannot watch \(path): \(String(cString: strerror(errno)))")
            return
        }
        state.withLock { $0.watches[watch] = uri }
        guard let directory = opendir(path) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix("."), entry.pointee.d_type == DT_DIR else { continue }
            addTree(uri.isEmpty ? name : uri + "/" + name, level: level + 1)
        }
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        defer {
            close(descriptor)
            close(wakeup.read)
            close(wakeup.write)
        }
        while true {
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeup.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 || state.withLock({ $0.stopped }) { return }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 {
                if count < 0 && errno == EINTR { continue }
                return
            }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (watch, mask, length, name): (Int32, UInt32, Int, String) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let bytes = raw[start..<min(count, start + Int(event.len))].prefix { $0 != 0 }
                    return (event.wd, event.mask, Int(event.len), String(decoding: bytes, as: UTF8.self))
                }
                offset += MemoryLayout<inotify_event>.size + length
                handle(watch: watch, mask: mask, name: name)
            }
        }
    }

    private func handle(watch: Int32, mask: UInt32, name: String) {
        guard let uri = state.withLock({ $0.watches[watch] }) else { return }
        if mask & UInt32(IN_IGNORED) != 0 {
            _ = state.withLock { $0.watches.removeValue(forKey: watch) }
            return
        }
        guard !name.hasPrefix(".") else { return }
        let child = uri.isEmpty ? name : uri + "/" + name
        if mask & UInt32(IN_ISDIR) != 0 && mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
            addTree(child, level: uri.split(separator: "/").count + 1)
        }
        let now = monotonic()
        state.withLock { $0.dirty[uri] = now }
    }

    /// Every 0.5 s: directories quiet for `delay` seconds are updated, a parent covering its children.
    private func flushLoop() {
        while true {
            usleep(500_000)
            let (ready, stopped): ([String], Bool) = state.withLock { state in
                let now = monotonic()
                let ready = state.dirty.filter { now - $0.value >= delay }.map(\.key)
                for uri in ready { state.dirty.removeValue(forKey: uri) }
                return (ready, state.stopped)
            }
            if stopped { return }
            let sorted = ready.sorted()
            var chosen: [String] = []
            for uri in sorted where !chosen.contains(where: { $0.isEmpty || uri.hasPrefix($0 + "/") }) {
                chosen.append(uri)
            }
            for uri in chosen { update(uri) }
        }
    }
}

private func monotonic() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
