import Dispatch
import FFmpegDecoder
import Foundation
import Lyrics
import NetEaseLibrary
import PlayerCore
import PlayerRuntime
import WebServer

/// Lyrics for the HTTP server: NetEase's for `netease://song/…`, else the user's own: a sidecar file beside the song
/// (`NAME.lrc`, then `NAME.txt`), then the file's tags (ID3 `SYLT`, then any unsynchronised text: `USLT`,
/// `LYRICS`/`UNSYNCEDLYRICS`, `©lyr`). LRC text is parsed wherever it is found.
struct LyricsService: LyricsProvider {
    let musicDirectory: String?
    let netease: NetEaseLyricsSource?
    /// Files are read off the cooperative threads.
    private static let queue = DispatchQueue(label: "nosignal.lyrics", attributes: .concurrent)

    func lyrics(for uri: String) async -> LyricsLookup {
        if uri.hasPrefix("netease://") { return await netease?.lyrics(uri: uri) ?? .none }
        guard !uri.contains("://"), let musicDirectory else { return .none }
        return await withCheckedContinuation { continuation in
            Self.queue.async { continuation.resume(returning: LocalLyrics.lookup(uri: uri, musicDirectory: musicDirectory)) }
        }
    }

    /// Fetches the lyrics of the song after the playing one whenever the player moves on (NetEase songs only: local
    /// files are read when asked). Returns the observer's id.
    func prefetchAhead(in store: PlayerStore) -> Int? {
        guard let netease else { return nil }
        // Observers run under the store's lock: the state is read afterwards, in a task.
        return store.observe { changes in
            guard changes.contains(where: { $0.kind == .player || $0.kind == .queue }) else { return }
            Task {
                guard let next = store.partition(PlayerState.defaultPartition)?.nextSongURI else { return }
                netease.prefetch(uri: next)
            }
        }
    }
}

extension PartitionState {
    /// The song `status` names as `nextsong`, if any.
    var nextSongURI: String? {
        nextPosition.flatMap { queue.items.indices.contains($0) ? queue.items[$0].song.uri : nil }
    }
}

/// The user's own lyrics of a song in the music directory. Every path is checked to stay inside the music directory
/// after symlinks are followed.
enum LocalLyrics {
    static let sidecarLimit = 1 << 20

    static func lookup(uri: String, musicDirectory: String) -> LyricsLookup {
        guard !uri.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }),
              let root = realPath(musicDirectory) else { return .none }
        let song = (musicDirectory as NSString).appendingPathComponent(uri)
        let stem = (song as NSString).deletingPathExtension
        for suffix in ["lrc", "LRC", "txt", "TXT"] {
            guard let path = inside(root, stem + "." + suffix), let text = read(path) else { continue }
            let lyrics = LRC.parse(text)
            if lyrics.isSynced || !(lyrics.text ?? "").isEmpty { return .found(lyrics) }
        }
        guard let path = inside(root, song) else { return .none }
        let embedded = FFmpegInspector.embeddedLyrics(path: path)
        for case .synchronized(let lines) in embedded where !lines.isEmpty {
            return .found(Lyrics(timed: lines.map { ($0.milliseconds, $0.text) }))
        }
        for case .text(let text) in embedded {
            let lyrics = LRC.parse(text)
            if lyrics.isSynced || !(lyrics.text ?? "").isEmpty { return .found(lyrics) }
        }
        return .none
    }

    /// `path` with symlinks resolved, when it exists and lies inside `root` (itself resolved).
    static func inside(_ root: String, _ path: String) -> String? {
        guard let resolved = realPath(path), resolved.hasPrefix(root + "/") else { return nil }
        return resolved
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A sidecar's text: UTF-8 (a byte-order mark dropped), else Latin-1; nil past `sidecarLimit` or unreadable.
    static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: sidecarLimit + 1), data.count <= sidecarLimit else { return nil }
        return String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1)
    }
}
