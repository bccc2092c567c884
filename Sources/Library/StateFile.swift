import Foundation
import PlayerCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// MPD's state file (`src/StateFile.cxx`, `src/queue/PlaylistState.cxx`, `src/queue/QueueSave.cxx`,
/// `src/SongSave.cxx`): volume, options, the player state and the queue, in MPD's text format so that a state
/// file moves between MPD and NoSignal in both directions.
///
/// ```
/// sw_volume: 50
/// state: stop
/// current: 1
/// random: 0 … mixrampdelay: -1.000000
/// playlist_begin
/// 0:dir/a.flac                 a song from the music directory: its URI only
/// Prio: 5                      the next song's priority
/// song_begin: http://radio/x   any other song (a URL, or a song with a range): URI, range, tags
/// Range: 500-1500
/// Time: 2.037000
/// Artist: Someone
/// song_end
/// playlist_end
/// ```
public enum StateFile {
    // MARK: Writing

    public static func render(_ state: SavedState) -> String {
        var out = ""
        if let volume = state.volume { out += "sw_volume: \(volume)\n" }
        out += "state: \(state.playState.rawValue)\n"
        if let current = state.queue.currentPosition { out += "current: \(current)\n" }
        if state.playState != .stop { out += "time: \(fixed(state.elapsed ?? 0))\n" }
        let o = state.options
        out += "random: \(o.random ? 1 : 0)\n"
        out += "repeat: \(o.repeat ? 1 : 0)\n"
        out += "single: \(number(o.single))\n"
        out += "consume: \(number(o.consume))\n"
        out += "crossfade: \(Int(o.crossfade))\n"
        out += "mixrampdb: \(fixed(Double(o.mixrampDB)))\n"
        out += "mixrampdelay: \(fixed(Double(o.mixrampDelay)))\n"
        out += "lastloadedplaylist: \(state.lastLoadedPlaylist ?? "")\n"
        out += "playlist_begin\n"
        for (index, entry) in state.queue.entries.enumerated() {
            if entry.priority != 0 { out += "Prio: \(entry.priority)\n" }
            let song = entry.song
            if !song.isRemote && entry.range == nil {
                out += "\(index):\(song.uri)\n"
                continue
            }
            out += "song_begin: \(song.uri)\n"
            if let range = entry.range {
                out += "Range: \(milliseconds(range.start))-\(range.end.map { String(milliseconds($0)) } ?? "")\n"
            }
            if let duration = song.duration { out += "Time: \(fixed(duration))\n" }
            for tag in song.tags { out += "\(tag.name): \(tag.value)\n" }
            if let modified = song.lastModified { out += "mtime: \(modified)\n" }
            out += "song_end\n"
        }
        out += "playlist_end\n"
        return out
    }

    /// `%f`.
    static func fixed(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        return String(format: "%f", value)
    }

    static func number(_ mode: OneshotMode) -> Int {
        switch mode {
        case .off: 0
        case .on: 1
        case .oneshot: 2
        }
    }

    static func milliseconds(_ seconds: Double) -> Int { Int(saturating: (seconds * 1000).rounded()) }

    /// Writes atomically: a temporary file in the same directory, then `rename`.
    public static func write(_ text: String, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        guard Glibc.rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    // MARK: Reading

    /// Parses a state file as MPD does, tolerating unknown lines (another server's output states, …).
    public static func parse(_ text: String) -> SavedState {
        var state = SavedState()
        var entries: [SavedQueue.Entry] = []
        var current: Int?
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }[...]
        func value(_ line: String, _ key: String) -> String? {
            line.hasPrefix(key + ": ") ? String(line.dropFirst(key.count + 2)) : nil
        }
        while let line = lines.popFirst() {
            if let v = value(line, "sw_volume") {
                state.volume = Int(v).map { min(100, max(0, $0)) }
            } else if let v = value(line, "state") {
                state.playState = PlayState(rawValue: v) ?? .stop
            } else if let v = value(line, "current") {
                current = Int(v)
            } else if let v = value(line, "time") {
                state.elapsed = Double(v)
            } else if let v = value(line, "random") {
                state.options.random = v == "1"
            } else if let v = value(line, "repeat") {
                state.options.repeat = v == "1"
            } else if let v = value(line, "single") {
                state.options.single = mode(v)
            } else if let v = value(line, "consume") {
                state.options.consume = mode(v)
            } else if let v = value(line, "crossfade") {
                state.options.crossfade = Double(max(0, Int(v) ?? 0))
            } else if let v = value(line, "mixrampdb") {
                state.options.mixrampDB = Float(v) ?? 0
            } else if let v = value(line, "mixrampdelay") {
                // MPD ignores anything not starting with a digit (old files wrote "nan").
                if let first = v.first, first.isASCII, first.isNumber { state.options.mixrampDelay = Float(v) ?? -1 }
            } else if let v = value(line, "lastloadedplaylist") {
                state.lastLoadedPlaylist = v.isEmpty ? nil : v
            } else if line == "playlist_begin" {
                entries = parsePlaylist(&lines)
            }
        }
        state.queue = SavedQueue(entries: entries, currentPosition: current)
        return state
    }

    static func mode(_ text: String) -> OneshotMode {
        switch text {
        case "1": .on
        case "2", "oneshot": .oneshot
        default: .off
        }
    }

    private static func parsePlaylist(_ lines: inout ArraySlice<String>) -> [SavedQueue.Entry] {
        var entries: [SavedQueue.Entry] = []
        var priority: UInt8 = 0
        while let line = lines.popFirst(), !line.hasPrefix("playlist_end") {
            if line.hasPrefix("Prio: ") {
                priority = UInt8(clamping: Int(line.dropFirst(6)) ?? 0)
                continue
            }
            if line.hasPrefix("song_begin: ") {
                var song = Song(uri: String(line.dropFirst("song_begin: ".count)))
                var range: Queue.ClosedRangeSeconds?
                while let inner = lines.popFirst(), inner != "song_end" {
                    guard let colon = inner.firstIndex(of: ":"), colon != inner.startIndex else { continue }
                    let key = String(inner[..<colon])
                    let value = String(inner[inner.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
                    switch key {
                    case "Time": song.duration = Double(value)
                    case "mtime": song.lastModified = Int64(value)
                    case "Format": song.audioFormat = value
                    case "Range":
                        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
                        let start = Double(Int(parts.first ?? "") ?? 0) / 1000
                        let end = parts.count > 1 ? Int(parts[1]).flatMap { $0 > 0 ? Double($0) / 1000 : nil } : nil
                        if start > 0 || end != nil { range = Queue.ClosedRangeSeconds(start: start, end: end) }
                    case "Target", "Playlist": break
                    default: song.tags.append(Song.Tag(key, value))
                    }
                }
                entries.append(SavedQueue.Entry(song: song, priority: priority, range: range))
            } else if let colon = line.firstIndex(of: ":"), Int(line[..<colon]) != nil,
                      line.index(after: colon) < line.endIndex {
                entries.append(SavedQueue.Entry(song: Song(uri: String(line[line.index(after: colon)...])),
                                                priority: priority))
            } else {
                continue
            }
            priority = 0
        }
        return entries
    }
}

extension SavedState {
    /// What the state file keeps of a partition.
    public init(_ p: PartitionState) {
        self.init(volume: p.volume, options: p.options, playState: p.player.state, elapsed: nil,
                  queue: SavedQueue(entries: p.queue.items.map {
                      SavedQueue.Entry(song: $0.song, priority: $0.priority, range: $0.range)
                  }, currentPosition: p.currentPosition), lastLoadedPlaylist: p.lastLoadedPlaylist)
    }
}

/// Writes the state file shortly after changes (debounced) and once more at shutdown, always atomically.
public final class StateFileSaver: Sendable {
    public let path: String
    public let delay: Duration
    private struct Inner {
        var snapshot: (@Sendable () -> SavedState?)?
        var pending = false
        var lastWritten: String?
    }
    private let inner = Mutex(Inner())
    private let onError: @Sendable (any Error) -> Void

    public init(path: String, delay: Duration = .seconds(2), onError: @escaping @Sendable (any Error) -> Void = { _ in }) {
        self.path = path
        self.delay = delay
        self.onError = onError
    }

    /// Where the state to save comes from (the store, which is created after this saver).
    public func attach(_ snapshot: @escaping @Sendable () -> SavedState?) {
        inner.withLock { $0.snapshot = snapshot }
    }

    /// Schedules a write after `delay`, unless one is already scheduled.
    public func requestSave() {
        let schedule = inner.withLock { (inner: inout Inner) -> Bool in
            guard !inner.pending else { return false }
            inner.pending = true
            return true
        }
        guard schedule else { return }
        Task {
            try? await Task.sleep(for: delay)
            inner.withLock { $0.pending = false }
            saveNow()
        }
    }

    /// Writes the current state at once if it differs from what was last written.
    public func saveNow() {
        guard let snapshot = inner.withLock({ $0.snapshot }), let state = snapshot() else { return }
        let text = StateFile.render(state)
        guard inner.withLock({ $0.lastWritten != text }) else { return }
        do {
            try StateFile.write(text, to: path)
            inner.withLock { $0.lastWritten = text }
        } catch {
            onError(error)
        }
    }

    /// Reads the state file; nil when there is none.
    public func load() -> SavedState? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return StateFile.parse(String(decoding: data, as: UTF8.self))
    }
}
