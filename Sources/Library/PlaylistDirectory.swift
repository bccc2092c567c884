import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MPDProtocol
import PlayerCore
import ServerPorts
import Synchronization

/// Stored playlists as MPD keeps them (`src/PlaylistFile.cxx`): one `NAME.m3u` per playlist in a flat
/// `playlist_directory`, one URI per line (paths relative to the music directory, URLs as they are), no header.
/// Reading skips blank lines and `#` comments and turns absolute paths inside the music directory into relative
/// ones, so files written by MPD or by hand load here and ours load in MPD.
///
/// Blocking file I/O: call it off the event loops. Edits are serialised by a lock so that two clients editing
/// the same playlist do not lose each other's changes; files are replaced atomically (temp file + rename).
public final class PlaylistDirectory: Sendable {
    public struct Info: Equatable, Sendable {
        public var name: String
        /// UNIX seconds.
        public var lastModified: Int64
    }

    public let path: String
    public let musicDirectory: String?
    /// `max_playlist_length`: also the longest stored playlist.
    public let maximumLength: Int
    private let lock = Mutex(())

    public init(path: String, musicDirectory: String?, maximumLength: Int = 16384) {
        self.path = path
        self.musicDirectory = musicDirectory.map { $0.hasSuffix("/") && $0.count > 1 ? String($0.dropLast()) : $0 }
        self.maximumLength = maximumLength
    }

    static let suffix = ".m3u"

    /// `spl_valid_name` (MPD 0.24.13): not empty, no `/`, no LF, valid UTF-8 by MPD's check.
    public static func isValidName(_ name: String) -> Bool { ByteText.isValidPlaylistName(name) }

    func file(_ name: String) throws(PlayerError) -> String {
        guard Self.isValidName(name) else { throw .badPlaylistName }
        return path + "/" + name + Self.suffix
    }

    /// `listplaylists`: every regular `*.m3u` whose name is not empty and has no newline, in the directory's own
    /// order, unsorted (MPD's `ListPlaylistFiles` reads the directory with `readdir` and lists what it reads).
    public func list() throws -> [Info] {
        var names: [String] = []
        if let directory = opendir(path) {
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                        String(cString: $0)
                    }
                }
                names.append(name)
            }
        }
        var result: [Info] = []
        for entry in names where entry.hasSuffix(Self.suffix) {
            let name = String(entry.dropLast(Self.suffix.count))
            guard !name.isEmpty, !name.contains("\n") else { continue }
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + entry)
            guard (attributes?[.type] as? FileAttributeType) == .typeRegular else { continue }
            let date = attributes?[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
            result.append(Info(name: name, lastModified: Int64(date.timeIntervalSince1970)))
        }
        return result
    }

    public func exists(_ name: String) -> Bool {
        guard let file = try? file(name) else { return false }
        return FileManager.default.fileExists(atPath: file)
    }

    /// The URIs of a playlist. Throws `.noSuchPlaylist` (also for a name that cannot exist).
    public func load(_ name: String) throws -> [String] {
        guard Self.isValidName(name) else { throw PlayerError.noSuchPlaylist }
        return try lock.withLock { _ in try read(name) }
    }

    private func read(_ name: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: try file(name)) else { throw PlayerError.noSuchPlaylist }
        return data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [String] in
            Self.lines(raw.bindMemory(to: UInt8.self), limit: maximumLength).map(relative)
        }
    }

    /// The entries of a playlist as MPD 0.24 reads them for `listplaylist(info)` and `load`
    /// (`playlist_open_in_playlist_dir`: the m3u and extm3u plugins, `#EXTINF` giving durations and names), URIs
    /// translated from the music directory's root. Throws `.noSuchPlaylist`.
    public func readEntries(_ name: String) throws -> [PlaylistEntry] {
        guard Self.isValidName(name) else { throw PlayerError.noSuchPlaylist }
        let data = try lock.withLock { _ in
            guard let data = FileManager.default.contents(atPath: try file(name)) else {
                throw PlayerError.noSuchPlaylist
            }
            return data
        }
        let parsed = MusicPlaylistFile.m3u(MusicPlaylistFile.lines([UInt8](data)))
        return MusicPlaylistFile.entries(parsed, base: "", musicDirectory: musicDirectory ?? "")
    }

    /// A playlist file's lines, split on their bytes (splitting the text into characters was a third of a `load` of
    /// 8,000 songs): a line ends at `\n` or `\r\n`, and one more `\r` at its end goes too; empty lines and comments
    /// (`#`) are skipped.
    static func lines(_ all: UnsafeBufferPointer<UInt8>, limit: Int) -> [String] {
        var lines: [String] = []
        guard let base = all.baseAddress else { return lines }
        var start = 0
        while start < all.count, lines.count < limit {
            let newline = memchr(base + start, 0x0A, all.count - start)
            let end = newline.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? all.count
            var last = end
            if end < all.count, last > start, all[last - 1] == 0x0D { last -= 1 }
            if last > start, all[last - 1] == 0x0D { last -= 1 }
            if last > start, all[start] != UInt8(ascii: "#") {
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: all[start..<last]), as: UTF8.self))
            }
            start = end + 1
        }
        return lines
    }

    /// An absolute path inside the music directory becomes relative; `file://` too; anything else is kept.
    func relative(_ uri: String) -> String {
        var uri = uri
        if uri.hasPrefix("file://") { uri.removeFirst("file://".count) }
        if let music = musicDirectory, uri.hasPrefix(music + "/") { return String(uri.dropFirst(music.count + 1)) }
        return uri
    }

    private func write(_ name: String, _ uris: [String]) throws {
        let target = try file(name)
        guard uris.count <= maximumLength else { throw PlayerError.playlistTooLarge }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var text = ""
        for uri in uris { text += uri + "\n" }
        let temporary = path + "/." + name + ".m3u.tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        if Glibc.rename(temporary, target) != 0 {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    public enum SaveMode: String, Sendable, CaseIterable {
        case create, append, replace
    }

    /// `save`: `create` fails when the playlist exists; `append` adds to it (creating it when missing);
    /// `replace` overwrites it.
    public func save(_ name: String, uris: [String], mode: SaveMode) throws {
        _ = try file(name)
        try lock.withLock { _ in
            let existing = FileManager.default.fileExists(atPath: try file(name))
            switch mode {
            case .create:
                guard !existing else { throw PlayerError.playlistExists("Playlist already exists") }
                try write(name, uris)
            case .append:
                try write(name, (existing ? try read(name) : []) + uris)
            case .replace:
                try write(name, uris)
            }
        }
    }

    /// Read-modify-write under the lock. `body` returns nil to leave the file untouched. A missing playlist is
    /// `.noSuchPlaylist` unless `createIfMissing`.
    public func edit(_ name: String, createIfMissing: Bool, _ body: ([String]) throws -> [String]?) throws {
        _ = try file(name)
        try lock.withLock { _ in
            let current: [String]
            if FileManager.default.fileExists(atPath: try file(name)) {
                current = try read(name)
            } else if createIfMissing {
                current = []
            } else {
                throw PlayerError.noSuchPlaylist
            }
            if let updated = try body(current) { try write(name, updated) }
        }
    }

    /// `rename`: both names valid, the target must not exist and the source must.
    public func rename(_ from: String, to: String) throws {
        let source = try file(from)
        let target = try file(to)
        try lock.withLock { _ in
            // MPD checks the target first (`spl_rename_internal`).
            guard !FileManager.default.fileExists(atPath: target) else {
                throw PlayerError.playlistExists("Playlist exists already")
            }
            guard FileManager.default.fileExists(atPath: source) else { throw PlayerError.noSuchPlaylist }
            try FileManager.default.moveItem(atPath: source, toPath: target)
        }
    }

    /// `rm`.
    public func remove(_ name: String) throws {
        let target = try file(name)
        try lock.withLock { _ in
            guard FileManager.default.fileExists(atPath: target) else { throw PlayerError.noSuchPlaylist }
            try FileManager.default.removeItem(atPath: target)
        }
    }
}
