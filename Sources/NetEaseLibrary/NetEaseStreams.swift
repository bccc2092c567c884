import Foundation
import NetEase
import PlayerCore

/// One NetEase song's stream as `song_url` granted it: looked up when the song is about to play, kept only for the
/// few seconds between that lookup and the song's start (never store URLs).
struct NetEaseStreamGrant: Sendable {
    var songID: Int64
    var url: String
    /// Bytes behind the URL, when NetEase said.
    var size: Int64?
    /// bit/s.
    var bitRate: Int?
    /// The level granted (`exhigh`, `lossless`, …), which may be lower than the one asked for.
    var level: String?
    /// Set when the account gets only a clip: its start and end in the song, seconds.
    var trial: SongEndpoints.URL.Stream.FreeTrial?
    var gain: Double?
    var peak: Double?
    /// Which request granted it, for the log (`eapi song_url_v1 exhigh`, `legacy song_url`).
    var source: String
    /// When the lookup was made and how long NetEase said the URL lives.
    var obtained: ContinuousClock.Instant
    var lifetime: Duration
    /// Handed out before (an earlier play of the song): NetEase may have revoked it since.
    var isReused = false

    /// A lookup made for the queued song is used only while it is surely still valid: 80 % of its stated life, at
    /// most the 15 minutes the reference suggests.
    var isFresh: Bool { ContinuousClock.now < obtained + min(lifetime * 0.8, .seconds(15 * 60)) }

    /// Seconds of audio behind a trial URL.
    var trialLength: Double? { trial.map { max(0, $0.end - $0.start) } }
}

/// Why a NetEase song cannot be played, in the words `status` shows after `Failed to decode netease://song/ID; `.
enum NetEaseStreamProblem: Error, CustomStringConvertible {
    /// `url: null` at every level and through every fallback (no copyright, VIP only, taken down).
    case unavailable(songID: Int64, code: Int?)
    /// Only a trial clip, and `trial_tracks "skip"`.
    case trialSkipped(songID: Int64, seconds: Double)
    /// NetEase could not be asked (network, rate limit, login).
    case request(NetEaseError)

    var description: String {
        switch self {
        case .unavailable(let id, let code):
            let detail = code.map { " (code \($0))" } ?? ""
            return "NetEase has no stream of song \(id) for this account\(detail): no copyright here, VIP only or taken down"
        case .trialSkipped(let id, let seconds):
            return "NetEase grants only a \(Int(saturating: seconds.rounded())) s trial clip of song \(id) to this account; skipped (trial_tracks \"skip\")"
        case .request(let error):
            return "NetEase: \(error)"
        }
    }
}

extension NetEaseService {
    /// Looks up a song's stream URL this way: eapi
    /// `song_url_v1` at the configured `quality`, then level by level below it while NetEase grants no URL; then
    /// weapi `song_url_v1`; then the legacy `song_url` with a bit rate. A trial clip is kept only when no full stream
    /// turns up. Blocking.
    func streamGrant(for id: Int64) throws(NetEaseStreamProblem) -> NetEaseStreamGrant {
        // Logged out, NetEase answers song_url only with the guest cookie, which `account()` obtains.
        do { _ = try account() } catch { throw .request(error) }
        // `standard` … `exhigh` are the lossy ladder every account has; above it each level is its own product.
        var attempts: [(endpoint: SongEndpoints.URL, label: String)] = []
        for level in settings.qualityLadder.reversed() {
            attempts.append((SongEndpoints.URL(ids: [id], level: level), "eapi song_url_v1 \(level)"))
        }
        attempts.append((SongEndpoints.URL(ids: [id], level: settings.quality, crypto: .weapi),
                         "weapi song_url_v1 \(settings.quality)"))
        var trial: NetEaseStreamGrant?
        var lastError: NetEaseError?
        var lastCode: Int?
        var eapiFailed = false
        for attempt in attempts {
            // A failing eapi (not a missing URL) says nothing about lower levels: go straight to weapi.
            if eapiFailed && attempt.endpoint.crypto == .eapi { continue }
            do {
                let answer = try send(attempt.endpoint)
                guard let stream = answer.data.first(where: { $0.id == id }) else { continue }
                lastCode = stream.code
                guard let grant = grant(stream, source: attempt.label) else { continue }
                if grant.trial == nil { return grant }
                trial = trial ?? grant
                break // a trial at one level is a trial at all of them; only the legacy call may do better
            } catch {
                lastError = error
                if attempt.endpoint.crypto == .eapi { eapiFailed = true }
                if case .rateLimited = error { throw .request(error) }
            }
        }
        // The legacy `song_url` (GMF: when v1 gave nothing or a trial), with 999000 for the lossless levels.
        let lossless = settings.qualityLadder.contains("lossless")
        do {
            let answer = try send(SongEndpoints.LegacyURL(ids: [id], bitRate: lossless ? 999_000 : 320_000))
            if let stream = answer.data.first(where: { $0.id == id }) {
                lastCode = stream.code
                if let grant = grant(stream, source: "legacy song_url"), grant.trial == nil { return grant }
            }
        } catch {
            lastError = error
        }
        if let trial { return trial }
        if let lastError, lastCode == nil { throw .request(lastError) }
        throw .unavailable(songID: id, code: lastCode)
    }

    private func grant(_ stream: SongEndpoints.URL.Stream, source: String) -> NetEaseStreamGrant? {
        guard let url = stream.url, !url.isEmpty else { return nil }
        // NetEase sends `gain: 0` and no peak when it has not measured the song: that is no information.
        let measured = (stream.gain ?? 0) != 0 || (stream.peak ?? 0) != 0
        return NetEaseStreamGrant(songID: stream.id, url: url, size: stream.size.flatMap { $0 > 0 ? $0 : nil },
                                  bitRate: stream.bitRate.flatMap { $0 > 0 ? $0 : nil }, level: stream.level,
                                  trial: stream.freeTrial, gain: measured ? stream.gain : nil,
                                  peak: measured ? stream.peak.flatMap { $0 > 0 ? $0 : nil } : nil, source: source,
                                  obtained: .now, lifetime: .seconds(max(1, stream.expiresIn ?? 1200)))
    }
}
