import Dispatch
import Foundation
import Logging
import NetEase
import PlayerCore
import PlayerRuntime
import Synchronization

/// Reports played NetEase songs to NetEase (`scrobble`, the weblog endpoint), so the account's "recently played"
/// and listening ranking (听歌排行) stay true. A song counts once it has really been heard for half its length or
/// four minutes (Last.fm's rule, which NetEase's own clients approximate); it is reported when it stops playing,
/// with the seconds heard. Reports go out on a background queue; a failed one waits and is retried later, so
/// playback never waits for NetEase. Reports still waiting are kept in a file (mode 0600: it is listening
/// history), so a restart does not lose them.
public final class NetEaseScrobbler: Sendable {
    let service: NetEaseService
    private let observe: @Sendable () -> PlayTracker.Observation
    private let interval: Double
    private let retryPause: Duration
    /// Where the waiting reports are kept; nil: in memory only.
    private let file: String?
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "nosignal.netease.scrobble")
    /// Guarded by `state`'s lock. Made by `start` only: libdispatch traps when a source that was never resumed is
    /// released.
    nonisolated(unsafe) private var timer: (any DispatchSourceTimer)?

    struct State {
        var tracker = PlayTracker()
        var pending: [Report] = []
        var retryAfter: ContinuousClock.Instant?
        var sending = false
    }

    struct Report: Sendable, Equatable, Codable {
        var songID: Int64
        var seconds: Int
    }

    /// At most this many reports wait for NetEase; older ones are dropped.
    static let maximumPending = 500

    /// `observe` reads what plays now (called on the scrobbler's queue every `interval` seconds). Reports left
    /// waiting in `file` by an earlier run are sent with the next ones.
    public init(service: NetEaseService, interval: Double = 0.5, retryPause: Duration = .seconds(60),
                file: String? = nil, observe: @escaping @Sendable () -> PlayTracker.Observation) {
        self.service = service
        self.interval = interval
        self.retryPause = retryPause
        self.file = file
        self.observe = observe
        if let file, let data = FileManager.default.contents(atPath: file) {
            do {
                let waiting = try JSONDecoder().decode([Report].self, from: data)
                state.withLock { $0.pending = waiting }
                if !waiting.isEmpty { service.logger.info("NetEase: \(waiting.count) scrobbles from before to send") }
            } catch {
                service.logger.warning("NetEase: ignoring the unreadable scrobbles file \(file): \(error)")
            }
        }
    }

    /// The file beside the cookie file that keeps the reports still to send.
    public static let fileName = "netease-scrobbles"

    /// Watches the default partition of `store`, with elapsed time from `audio`; the waiting reports are kept
    /// beside the cookie file.
    public convenience init(service: NetEaseService, store: PlayerStore, audio: AudioPlayer) {
        let folder = (service.settings.cookieFile as NSString).deletingLastPathComponent
        self.init(service: service, file: (folder as NSString).appendingPathComponent(Self.fileName)) {
            let partition = PlayerState.defaultPartition
            guard let state = store.partition(partition), state.player.state != .stop,
                  let order = state.player.currentOrder, order < state.queue.order.count
            else { return PlayTracker.Observation() }
            let item = state.queue.items[state.queue.order[order]]
            let progress = audio.progress(partition: partition)
            return PlayTracker.Observation(itemID: item.id, uri: item.song.uri,
                                           duration: progress?.duration ?? item.song.duration,
                                           elapsed: progress?.elapsed, playing: state.player.state == .play)
        }
    }

    public func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.tick() }
        state.withLock { _ in self.timer = timer }
        timer.resume()
    }

    public func stop() {
        state.withLock { _ in
            timer?.cancel()
            timer = nil
        }
    }

    /// The reports waiting for a retry (tests).
    var pendingReports: [Report] { state.withLock { $0.pending } }

    /// One look at the player (the timer's queue, or a test).
    func tick() {
        let observation = observe()
        let finished = state.withLock { $0.tracker.observe(observation, interval: interval) }
        if let play = finished, play.qualifies, let id = NetEaseURI.songID(play.uri) {
            state.withLock { state in
                state.pending.append(Report(songID: id, seconds: Int(play.played.rounded())))
                if state.pending.count > Self.maximumPending { state.pending.removeFirst() }
                save(state.pending)
            }
        }
        sendPending()
    }

    /// Sends what waits, one at a time in order, unless a failure asked for a pause.
    private func sendPending() {
        let batch: [Report]? = state.withLock { state in
            guard !state.sending, !state.pending.isEmpty else { return nil }
            if let until = state.retryAfter, ContinuousClock.now < until { return nil }
            state.sending = true
            return state.pending
        }
        guard let batch else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            var sent = 0
            var failure: NetEaseError?
            for report in batch {
                do throws(NetEaseError) {
                    _ = try service.userID() // a guest has no history to keep
                    _ = try service.send(UserEndpoints.Scrobble(songID: report.songID, sourceID: nil,
                                                                seconds: report.seconds))
                    service.logger.info("NetEase: scrobbled song \(report.songID) (\(report.seconds) s)")
                    sent += 1
                } catch {
                    failure = error
                    break
                }
            }
            state.withLock { state in
                state.pending.removeFirst(min(sent, state.pending.count))
                state.sending = false
                state.retryAfter = failure.map { _ in ContinuousClock.now + retryPause }
                if sent > 0 { save(state.pending) }
            }
            if let failure {
                if case .loginRequired = failure {
                    // Not logged in: nothing to report to.
                    state.withLock { state in
                        state.pending.removeAll()
                        save(state.pending)
                    }
                } else {
                    service.logger.warning("NetEase: cannot scrobble (\(failure)); \(batch.count - sent) to retry in \(retryPause)")
                }
            }
        }
    }
}

extension NetEaseScrobbler {
    /// Keeps the waiting reports in the file (called under the state's lock, so writes come in order; they are
    /// rare: a finished song, a batch sent). No report waiting: no file.
    private func save(_ pending: [Report]) {
        guard let file else { return }
        if pending.isEmpty {
            unlink(file)
            return
        }
        do {
            try PrivateFile.write(try JSONEncoder().encode(pending), to: file)
        } catch {
            service.logger.warning("NetEase: cannot keep the scrobbles to send in \(file): \(error)")
        }
    }
}

/// Follows the current song and adds up the seconds really heard: elapsed time that advanced while playing, by
/// about the observation interval (a seek's jump is not listening).
public struct PlayTracker: Sendable {
    public struct Observation: Sendable {
        public var itemID: Int?
        public var uri: String?
        public var duration: Double?
        public var elapsed: Double?
        public var playing: Bool

        public init(itemID: Int? = nil, uri: String? = nil, duration: Double? = nil, elapsed: Double? = nil,
                    playing: Bool = false) {
            self.itemID = itemID
            self.uri = uri
            self.duration = duration
            self.elapsed = elapsed
            self.playing = playing
        }
    }

    public struct Play: Sendable, Equatable {
        public var itemID: Int
        public var uri: String
        public var duration: Double?
        public var played: Double
        var lastElapsed: Double?

        /// Half the song, or four minutes of a long one; four minutes when the length is unknown.
        public var qualifies: Bool { played > 0 && played >= min(240, (duration ?? 480) / 2) }
    }

    public private(set) var current: Play?

    public init() {}

    /// Takes one observation; returns the play that just ended (another song, or playback stopped).
    public mutating func observe(_ observation: Observation, interval: Double) -> Play? {
        var finished: Play?
        if current?.itemID != observation.itemID {
            finished = current
            current = observation.itemID.map { id in
                Play(itemID: id, uri: observation.uri ?? "", duration: observation.duration, played: 0,
                     lastElapsed: observation.elapsed)
            }
            // The first look at a song sees what it played since it started (at most one interval).
            if var play = current, let elapsed = observation.elapsed, observation.playing,
               elapsed > 0, elapsed <= interval * 2 + 0.5 {
                play.played = elapsed
                current = play
            }
            return finished
        }
        guard var play = current else { return nil }
        if let elapsed = observation.elapsed {
            if let last = play.lastElapsed, observation.playing {
                let step = elapsed - last
                if step > 0 && step <= interval * 2 + 0.5 { play.played += step }
            }
            play.lastElapsed = elapsed
        }
        if let duration = observation.duration { play.duration = duration }
        current = play
        return nil
    }
}
