import Dispatch
import Foundation
import Logging
import NetEase
import PlayerCore
import PlayerRuntime

/// Plays `netease://song/<id>`: the player's decoder factory with NetEase in front of FFmpeg. The stream URL is
/// looked up when the song is about to play (`prepare`, called when the song becomes the queued next one, so the
/// lookup is done before the border), read through libcurl, and looked up again when the CDN refuses it in the
/// middle of the song (an expired URL answers 403): the new transfer starts at the byte where the old one stopped,
/// so the decoder never notices. Everything else goes to `inner` unchanged.
public final class NetEaseDecoderFactory: AudioDecoderFactory, Sendable {
    let inner: any AudioDecoderFactory
    let service: NetEaseService
    /// For the CDN transfers; no overall time limit (a song streams for minutes), a connect timeout and a stall
    /// limit instead.
    let http: HTTPConfiguration
    /// Fills in `netease://fm` and `netease://heartbeat` when the player nears or reaches them.
    let radio: NetEaseRadio?
    private let lookups = LookupCache()

    public init(inner: any AudioDecoderFactory, service: NetEaseService,
                radio: NetEaseRadio? = nil) {
        self.inner = inner
        self.service = service
        self.radio = radio
        http = HTTPConfiguration(connectTimeout: min(10, Double(service.settings.timeout)),
                                 lowSpeedTime: max(5, service.settings.timeout), requestTimeout: nil)
    }

    static func songID(_ location: String) -> Int64? {
        guard location.hasPrefix(NetEaseURI.scheme), case .song(let id)? = NetEaseReference(location) else { return nil }
        return id
    }

    public func prepare(_ location: String) {
        if let radio, location.hasPrefix(NetEaseURI.scheme) { radio.prepare(location) }
        guard let id = Self.songID(location) else { return inner.prepare(location) }
        guard lookups.begin(id) else { return }
        let service = service
        let lookups = lookups
        DispatchQueue.global(qos: .userInitiated).async {
            lookups.finish(id, Result { () throws(NetEaseStreamProblem) in try service.streamGrant(for: id) })
        }
    }

    /// While the partition is stopped, the song `play` would start (the current one, else the first) is looked up
    /// ahead whenever the queue or the player changes: `add` then `play` a moment later waits only for the CDN,
    /// one round trip instead of two. A song with a fresh URL or a lookup in flight is not asked again, and other
    /// songs cost nothing. Call it after the state file is restored: a restored queue needs no request.
    public func lookUpAhead(in store: PlayerStore, partition: String = PlayerState.defaultPartition) {
        store.observe { [self] changes in
            let relevant = changes.contains { change in
                [.queue, .player].contains(change.kind) && (change.partition ?? partition) == partition
            }
            guard relevant else { return }
            // Observers run under the store's lock: the state is read from elsewhere.
            DispatchQueue.global(qos: .utility).async { [self] in
                guard let state = store.partition(partition), state.player.state == .stop else { return }
                let order = state.player.currentOrder ?? 0
                guard order < state.queue.order.count else { return }
                let uri = state.queue.items[state.queue.order[order]].song.uri
                if Self.songID(uri) != nil { prepare(uri) }
            }
        }
    }

    public func open(_ location: String) throws(DecoderError) -> any AudioDecoding {
        guard let id = Self.songID(location) else {
            if location.hasPrefix(NetEaseURI.scheme), let radio {
                // The queue now has songs before the entry and the player is told to play those instead; this
                // error is dropped with the abandoned decoding.
                try radio.reached(location)
                throw DecoderError("\(location) is a source, not a song", cause: "the NetEase radio moved on")
            }
            return try inner.open(location)
        }
        var grant = try lookUp(id, location: location)
        if grant.isReused {
            // A URL looked up for an earlier play of the song: fine unless NetEase revoked it since.
            do { return try open(id, grant: grant, location: location) } catch {
                service.logger.info("NetEase: the earlier URL of song \(id) no longer works (\(error.message)); looking it up again")
                lookups.forget(id)
                grant = try lookUp(id, location: location)
            }
        }
        return try open(id, grant: grant, location: location)
    }

    private func open(_ id: Int64, grant: NetEaseStreamGrant, location: String) throws(DecoderError)
        -> any AudioDecoding
    {
        if let seconds = grant.trialLength {
            service.logger.notice("NetEase: song \(id) is only a \(Int(saturating: seconds.rounded())) s trial clip for this account; playing the clip (trial_tracks \"play\")")
        }
        let input = try NetEaseStreamInput(grant: grant, http: http, location: location) {
            [service, lookups] () throws(DecoderError) -> NetEaseStreamGrant in
            do throws(NetEaseStreamProblem) {
                let fresh = try service.streamGrant(for: id)
                lookups.store(fresh)
                return fresh
            } catch {
                throw DecoderError("Failed to read \"\(location)\": \(error)", cause: error.description)
            }
        }
        input.logger = service.logger
        let decoder = try inner.open(grant.url, input: input)
        service.logger.info("NetEase: playing song \(id) at \(grant.level ?? "an unknown level") (\(grant.source))")
        return NetEaseSongDecoder(decoder, grant: grant)
    }

    /// The queued song's lookup when it is ready and fresh, else a lookup now. Problems become the decoder error
    /// the player shows in `status` (and skips on).
    private func lookUp(_ id: Int64, location: String) throws(DecoderError) -> NetEaseStreamGrant {
        var result = lookups.take(id)
        if result == nil {
            result = Result { () throws(NetEaseStreamProblem) in try service.streamGrant(for: id) }
            if case .success(let grant)? = result { lookups.store(grant) }
        }
        switch result! {
        case .success(let grant):
            if let seconds = grant.trialLength, !service.settings.playsTrialClips {
                let problem = NetEaseStreamProblem.trialSkipped(songID: id, seconds: seconds)
                service.logger.warning("\(problem)")
                throw DecoderError("Failed to open \"\(location)\": \(problem)", cause: problem.description)
            }
            return grant
        case .failure(let problem):
            service.logger.warning("cannot play \(location): \(problem)")
            throw DecoderError("Failed to open \"\(location)\": \(problem)", cause: problem.description)
        }
    }

    /// Lookups started by `prepare`, waited for by `open`; granted URLs are kept while fresh, so playing a song
    /// again (`previous`, repeat, a seek after a stop) needs no lookup (cache ≤ 15 min, look up again
    /// on 403/404).
    final class LookupCache: @unchecked Sendable {
        private let condition = NSCondition()
        private var pending: Set<Int64> = []
        private var done: [Int64: Result<NetEaseStreamGrant, NetEaseStreamProblem>] = [:]
        static let capacity = 64

        /// False when a lookup of `id` is already running or ready.
        func begin(_ id: Int64) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            if pending.contains(id) { return false }
            if case .success(let grant)? = done[id], grant.isFresh { return false }
            pending.insert(id)
            return true
        }

        func finish(_ id: Int64, _ result: Result<NetEaseStreamGrant, NetEaseStreamProblem>) {
            condition.lock()
            pending.remove(id)
            if done.count >= Self.capacity {
                done = done.filter { if case .success(let grant) = $0.value { grant.isFresh } else { false } }
                if done.count >= Self.capacity { done.removeAll() }
            }
            done[id] = result
            condition.broadcast()
            condition.unlock()
        }

        /// The lookup's result (waiting for one in flight); nil when none was started. A failure is handed out once;
        /// a grant stays for the next play, marked as reused.
        func take(_ id: Int64) -> Result<NetEaseStreamGrant, NetEaseStreamProblem>? {
            condition.lock()
            defer { condition.unlock() }
            while pending.contains(id) { condition.wait() }
            guard let result = done[id] else { return nil }
            switch result {
            case .success(var grant):
                guard grant.isFresh else {
                    done[id] = nil
                    return nil
                }
                let handedOut = grant
                grant.isReused = true
                done[id] = .success(grant)
                return .success(handedOut)
            case .failure:
                done[id] = nil
                return result
            }
        }

        func store(_ grant: NetEaseStreamGrant) {
            condition.lock()
            defer { condition.unlock() }
            if !pending.contains(grant.songID) {
                var kept = grant
                kept.isReused = true
                done[grant.songID] = .success(kept)
            }
        }

        func forget(_ id: Int64) {
            condition.lock()
            defer { condition.unlock() }
            done[id] = nil
        }
    }
}

/// A NetEase song's bytes: a libcurl stream of the granted URL that, when the CDN refuses to go on (an expired URL
/// answers 403, a removed one 404) or the connection cannot be resumed, looks the URL up again and continues from
/// the same byte — the decoder sees one uninterrupted file. The new URL must name the same file (same size).
final class NetEaseStreamInput: RemoteInput {
    let size: Int64?
    let mimeType: String?
    let isSeekable: Bool
    var logger: Logger?
    private var stream: CurlInputStream
    private var grant: NetEaseStreamGrant
    private let http: HTTPConfiguration
    private let location: String
    private let relookUp: () throws(DecoderError) -> NetEaseStreamGrant
    /// Fresh URLs in a row without a byte read in between; two is enough to tell a dead song from an expired URL.
    private var renewals = 0
    static let maximumRenewals = 2

    init(grant: NetEaseStreamGrant, http: HTTPConfiguration, location: String,
         relookUp: @escaping () throws(DecoderError) -> NetEaseStreamGrant) throws(DecoderError) {
        self.grant = grant
        self.http = http
        self.location = location
        self.relookUp = relookUp
        stream = try CurlInputStream(url: grant.url, configuration: http)
        size = stream.size
        mimeType = stream.mimeType
        isSeekable = stream.isSeekable
    }

    var position: Int64 { stream.position }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        while true {
            do {
                let count = try stream.read(into: buffer)
                if count > 0 { renewals = 0 }
                return count
            } catch {
                try renew(at: stream.position, after: error)
            }
        }
    }

    func seek(to offset: Int64) throws(DecoderError) {
        if !grant.isFresh {
            try renew(at: offset, after: nil)
            return
        }
        do { try stream.seek(to: offset) } catch { try renew(at: offset, after: error) }
    }

    func takeMetadata() -> [Song.Tag]? { nil }

    func close() { stream.close() }

    /// Replaces the stream with one of a freshly looked-up URL, starting at `offset`.
    private func renew(at offset: Int64, after error: DecoderError?) throws(DecoderError) {
        guard renewals < Self.maximumRenewals else { throw error ?? DecoderError("Failed to read \"\(location)\"") }
        renewals += 1
        let reason = error.map { "the stream failed at byte \(offset) (\($0.cause ?? $0.message))" }
            ?? "the URL is about to expire"
        logger?.notice("NetEase: \(reason) of \(location); asking for a new URL")
        let fresh = try relookUp()
        let replacement = try CurlInputStream(url: fresh.url, configuration: http, offset: offset)
        if let size, let newSize = replacement.size, newSize != size {
            replacement.close()
            throw DecoderError("Failed to read \"\(location)\": the new URL is another file (\(newSize) bytes, not \(size))",
                               cause: "NetEase changed the stream of this song while it played")
        }
        stream.close()
        stream = replacement
        grant = fresh
    }
}

/// FFmpeg's decoder of a NetEase stream with what `song_url` adds: NetEase's loudness (`gain`, `peak`) as the
/// track's ReplayGain when the file carries none, the bit rate NetEase granted when the container does not say, and
/// a trial clip's length.
final class NetEaseSongDecoder: AudioDecoding {
    private let inner: any AudioDecoding
    let replayGain: ReplayGainInfo
    let duration: Double?
    let bitrate: Int?

    init(_ inner: any AudioDecoding, grant: NetEaseStreamGrant) {
        self.inner = inner
        replayGain = inner.replayGain.isEmpty && grant.gain != nil
            ? ReplayGainInfo(trackGain: grant.gain, trackPeak: grant.peak) : inner.replayGain
        duration = inner.duration ?? grant.trialLength
        bitrate = inner.bitrate ?? grant.bitRate.map { $0 / 1000 }
    }

    var format: AudioFormat { inner.format }
    var mixRampStart: String? { inner.mixRampStart }
    var mixRampEnd: String? { inner.mixRampEnd }
    func read(into buffer: inout [UInt8]) throws(DecoderError) -> Bool { try inner.read(into: &buffer) }
    func seek(to seconds: Double) throws(DecoderError) { try inner.seek(to: seconds) }
    func takeStreamTags() -> [Song.Tag]? { inner.takeStreamTags() }
}
