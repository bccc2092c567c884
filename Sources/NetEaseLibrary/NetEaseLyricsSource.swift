import Foundation
import Logging
import Lyrics
import NetEase
import Synchronization

/// A NetEase song's lyrics: `lyric_new` (eapi: the LRC, its translation and romanization, and the word-timed
/// `yrc`), else the older `lyric` (weapi), as NetEase's own clients ask. Answers that say something lasting (lyrics,
/// or "instrumental") are kept as NetEase sent them in `cache_directory/netease-lyrics/ID.json`, so a song's lyrics
/// are fetched once; "not collected yet" and failures are asked again next time. `prefetch` fetches ahead (the
/// queued next song) so that the page has the lines when the song starts.
public final class NetEaseLyricsSource: Sendable {
    let service: NetEaseService
    let directory: String
    let logger: Logger
    /// Songs being fetched now, so that a prefetch and a request for the same song do not both ask.
    private let inFlight = Mutex<[Int64: Task<LyricsLookup, Never>]>([:])

    public init(service: NetEaseService, cacheDirectory: String, logger: Logger) {
        self.service = service
        directory = (cacheDirectory as NSString).appendingPathComponent("netease-lyrics")
        self.logger = logger
    }

    /// The lyrics of `netease://song/ID`; `.none` for any other URI.
    public func lyrics(uri: String) async -> LyricsLookup {
        guard let id = NetEaseCatalog.songID(uri) else { return .none }
        return await lyrics(songID: id)
    }

    public func lyrics(songID id: Int64) async -> LyricsLookup {
        if let cached = cached(id) { return cached }
        let task = inFlight.withLock { tasks -> Task<LyricsLookup, Never> in
            if let running = tasks[id] { return running }
            let task = Task { await self.fetch(id) }
            tasks[id] = task
            return task
        }
        let lookup = await task.value
        _ = inFlight.withLock { $0.removeValue(forKey: id) }
        return lookup
    }

    /// Fetches in the background (the next song in the queue); nothing when already kept.
    public func prefetch(uri: String) {
        guard let id = NetEaseCatalog.songID(uri), cached(id) == nil else { return }
        Task { _ = await lyrics(songID: id) }
    }

    func path(_ id: Int64) -> String { (directory as NSString).appendingPathComponent("\(id).json") }

    func cached(_ id: Int64) -> LyricsLookup? {
        guard let data = FileManager.default.contents(atPath: path(id)) else { return nil }
        let lookup = NetEaseLyrics.lookup(fromJSON: data)
        return lookup == .none ? nil : lookup
    }

    private func fetch(_ id: Int64) async -> LyricsLookup {
        let service = self.service
        for (path, parameters, crypto) in [
            (SongEndpoints.LyricNew(id: id).path, SongEndpoints.LyricNew(id: id).parameters, RequestCrypto.eapi),
            (SongEndpoints.Lyric(id: id).path, SongEndpoints.Lyric(id: id).parameters, RequestCrypto.weapi),
        ] {
            let answer: JSONValue
            do {
                answer = try await service.run {
                    try service.gated { () throws(NetEaseError) in
                        try service.client.request(path: path, params: parameters, crypto: crypto)
                    }
                }
            } catch {
                logger.info("lyrics of NetEase song \(id) (\(path)): \(error)")
                continue
            }
            let data = Data(answer.jsonText.utf8)
            let lookup = NetEaseLyrics.lookup(fromJSON: data)
            switch lookup {
            case .found, .instrumental:
                keep(data, id)
                return lookup
            case .uncollected:
                return lookup
            case .none:
                continue
            }
        }
        return .none
    }

    /// Writes the answer as it came (readable again by `lookup(fromJSON:)`); a failure only costs a later fetch.
    private func keep(_ data: Data, _ id: Int64) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: path(id)), options: .atomic)
        } catch {
            logger.info("cannot keep the lyrics of NetEase song \(id): \(error)")
        }
    }
}
