import Dispatch
import Foundation
import Logging
import NetEase
import PlayerCore
import Synchronization

/// The server's NetEase session: the client, which account it speaks for (a login, or NetEase's guest mode), and
/// the rules every request follows here — a back-off after rate limiting, a short memory of recent answers, and
/// the tags of every song seen. All NetEase calls block, so they run on a queue of their own (`run`), never on an
/// event loop or on Swift's cooperative threads.
public final class NetEaseService: Sendable {
    public enum Account: Sendable, Equatable {
        case loggedIn(userID: Int64, nickname: String)
        case guest
    }

    public let client: NetEaseClient
    public let settings: NetEaseOptions
    /// Where album covers are kept (`<cache_directory>/netease-covers`).
    let coverDirectory: String
    let logger: Logger
    let http: HTTPClient
    private let state = Mutex(State())
    private let workers = DispatchQueue(label: "nosignal.netease", qos: .userInitiated, attributes: .concurrent)

    struct State {
        var account: Account?
        /// The account last reported in the log, so a re-check that finds the same login says nothing.
        var announced: Account?
        /// After a 405/406 no request goes out before this instant; callers get the same error at once.
        var quietUntil: ContinuousClock.Instant?
        var quietError: NetEaseError?
        /// The last request found NetEase unreachable (timeout, network error) and nothing answered since.
        var unreachableUntil: ContinuousClock.Instant?
        var unreachableError: NetEaseError?
        var answers: [String: (expires: ContinuousClock.Instant, value: any Sendable)] = [:]
        var songs: [Int64: Song] = [:]
        var covers: [Int64: (album: Int64, url: String)] = [:]
    }

    /// How long the service waits or remembers. Tests stretch them: a loaded machine can take longer than a
    /// minute between two steps of one test.
    public struct Pauses: Sendable {
        /// How long NetEase is left alone after it rate-limited us (it asks for "a minute").
        public var backOff: Duration = .seconds(60)
        /// How long optional requests (the online part of `search`) skip NetEase after it was unreachable.
        public var unreachable: Duration = .seconds(30)
        /// How long a listing or search answer is reused: clients repeat `lsinfo` and searches while browsing.
        public var answerLifetime: Duration = .seconds(60)

        public init() {}
    }

    let pauses: Pauses
    static let maximumAnswers = 500
    static let maximumKnownSongs = 100_000

    public init(client: NetEaseClient, settings: NetEaseOptions, cacheDirectory: String, logger: Logger,
                pauses: Pauses = Pauses()) {
        self.client = client
        self.pauses = pauses
        self.settings = settings
        self.coverDirectory = (cacheDirectory as NSString).appendingPathComponent("netease-covers")
        self.logger = logger
        http = HTTPClient(configuration: HTTPConfiguration(connectTimeout: min(10, Double(settings.timeout)),
                                                           requestTimeout: Double(settings.timeout), maxRedirects: 3))
    }

    /// The client the `netease { … }` settings describe: hosts, test key, `X-Real-IP`, timeout, the cookie file
    /// (created 0600 in a 0700 folder) and a device id kept beside it, so NetEase sees one device across restarts
    /// and `nosignal login`.
    public static func makeClient(_ settings: NetEaseOptions, logger: Logger? = nil) throws -> NetEaseClient {
        var configuration = NetEaseClient.Configuration()
        if let url = settings.apiURL { configuration.apiURL = url }
        if let url = settings.eapiURL { configuration.eapiURL = url }
        if let file = settings.weapiPublicKeyFile {
            do { configuration.publicKey = try RSAPublicKey(pem: String(contentsOfFile: file, encoding: .utf8)) } catch {
                throw SetupError(description: "weapi_public_key \(file): \(error)")
            }
        }
        configuration.realIP = settings.realIP
        configuration.timeout = Double(settings.timeout)
        let folder = (settings.cookieFile as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            configuration.deviceID = try deviceID(in: folder)
            return NetEaseClient(configuration: configuration, cookies: try CookieJar(file: settings.cookieFile),
                                 logger: logger)
        } catch {
            throw SetupError(description: "cannot read the cookie file \(settings.cookieFile): \(error)")
        }
    }

    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    static let deviceFileName = "netease-device-id"

    /// The installation's device id, made once.
    static func deviceID(in folder: String) throws -> String {
        let path = (folder as NSString).appendingPathComponent(deviceFileName)
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !id.isEmpty { return id }
        }
        let id = NetEaseClient.Configuration.randomDeviceID()
        try Data((id + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return id
    }

    // MARK: Running requests

    /// Runs blocking NetEase work on the service's queue and waits for it without holding a cooperative thread.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            workers.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Sends an endpoint under the service's rules: refused at once while backing off, a back-off started by
    /// 405/406, an expired login noticed on 301.
    public func send<E: NetEaseEndpoint>(_ endpoint: E) throws(NetEaseError) -> E.Response {
        try gated { () throws(NetEaseError) in try client.send(endpoint) }
    }

    func gated<T>(_ body: () throws(NetEaseError) -> T) throws(NetEaseError) -> T {
        let now = ContinuousClock.now
        if let error = state.withLock({ state -> NetEaseError? in
            guard let until = state.quietUntil, now < until else { return nil }
            return state.quietError
        }) {
            throw error
        }
        do {
            let result = try body()
            state.withLock { $0.unreachableUntil = nil }
            return result
        } catch {
            switch error {
            case .timeout, .network:
                state.withLock {
                    $0.unreachableUntil = ContinuousClock.now + pauses.unreachable
                    $0.unreachableError = error
                }
            default:
                // NetEase answered, even if with an error: it is reachable.
                state.withLock { $0.unreachableUntil = nil }
            }
            switch error {
            case .rateLimited:
                logger.warning("NetEase: \(error); no requests for \(pauses.backOff)")
                state.withLock {
                    $0.quietUntil = ContinuousClock.now + pauses.backOff
                    $0.quietError = error
                }
            case .loginRequired:
                loginExpired()
            default:
                break
            }
            throw error
        }
    }

    /// The error of the last request when NetEase was unreachable less than `pauses.unreachable` ago and has not
    /// answered since; optional requests skip NetEase meanwhile instead of waiting for another timeout.
    public func unreachable() -> NetEaseError? {
        state.withLock { state in
            guard let until = state.unreachableUntil, ContinuousClock.now < until else { return nil }
            return state.unreachableError
        }
    }

    // MARK: The account

    /// The account requests speak for: checked once (`login/status`); a missing or expired login becomes guest
    /// mode (`register_anonimous`), so search and charts still work.
    public func account() throws(NetEaseError) -> Account {
        if let account = state.withLock({ $0.account }) { return account }
        client.isLoginSuppressed = false
        let status = try send(LoginEndpoints.Status())
        let account: Account
        if status.isLoggedIn, let profile = status.profile {
            account = .loggedIn(userID: profile.id, nickname: profile.nickname ?? "")
        } else {
            // An expired login stays stored but is no longer sent, so the guest token is.
            client.isLoginSuppressed = true
            try registerGuest()
            account = .guest
        }
        let announce = state.withLock { state -> Bool in
            state.account = account
            defer { state.announced = account }
            return state.announced != account
        }
        if announce {
            switch account {
            case .loggedIn(let id, let nickname):
                logger.notice("NetEase: logged in as \(nickname) (user \(id))")
            case .guest where client.cookies.value("MUSIC_U") != nil:
                logger.warning("NetEase: the login has expired; using guest mode until `nosignal login`")
            case .guest:
                logger.notice("NetEase: not logged in; using guest mode (`nosignal login` to log in)")
            }
        }
        return account
    }

    /// The logged-in user's id; `.loginRequired` in guest mode.
    public func userID() throws(NetEaseError) -> Int64 {
        guard case .loggedIn(let id, _) = try account() else { throw .loginRequired }
        return id
    }

    /// Forgets the account and reads the cookie file again, so the next request checks the login that
    /// `nosignal login` (another process) may have stored since.
    public func recheckAccount() {
        do { try client.cookies.reload() } catch { logger.warning("NetEase: cannot read the cookie file: \(error)") }
        state.withLock { $0.account = nil }
    }

    private func registerGuest() throws(NetEaseError) {
        guard client.cookies.value("MUSIC_A") == nil else { return }
        _ = try send(LoginEndpoints.RegisterAnonymous(deviceID: client.configuration.deviceID))
    }

    /// A 301 while logged in: the login expired. Said once; guest mode from then on.
    private func loginExpired() {
        let wasLoggedIn = state.withLock { state -> Bool in
            guard case .loggedIn? = state.account else { return false }
            state.account = .guest
            state.announced = .guest
            return true
        }
        guard wasLoggedIn else { return }
        client.isLoginSuppressed = true
        logger.warning("NetEase: the login has expired (301); using guest mode until `nosignal login`")
        do { try registerGuest() } catch { logger.warning("NetEase: cannot start guest mode: \(error)") }
    }

    // MARK: Memory

    /// The answer to `key` from the last `answerLifetime`, or a fresh one.
    func remembered<T: Sendable>(_ key: String, _ fetch: () throws(NetEaseError) -> T) throws(NetEaseError) -> T {
        let now = ContinuousClock.now
        if let value = state.withLock({ state -> T? in
            guard let entry = state.answers[key], entry.expires > now else { return nil }
            return entry.value as? T
        }) {
            return value
        }
        let value = try fetch()
        state.withLock { state in
            if state.answers.count >= Self.maximumAnswers {
                state.answers = state.answers.filter { $0.value.expires > now }
                // Still full: the oldest answer goes.
                if state.answers.count >= Self.maximumAnswers,
                   let oldest = state.answers.min(by: { $0.value.expires < $1.value.expires })?.key {
                    state.answers[oldest] = nil
                }
            }
            state.answers[key] = (now + pauses.answerLifetime, value)
        }
        return value
    }

    /// Forgets remembered answers (after `update NetEase`).
    func forgetAnswers() {
        state.withLock { $0.answers.removeAll() }
    }

    /// Forgets the answers remembered under `keys`: NoSignal itself just changed what they describe (a like, a
    /// playlist edit), so the next listing must not show the minute-old state.
    func forgetAnswers(_ keys: [String]) {
        state.withLock { state in
            for key in keys { state.answers[key] = nil }
        }
    }

    /// The songs as the player sees them, remembered with their covers for `knownSong` and `albumart`.
    func remember(_ songs: [NetEaseSong]) -> [Song] {
        let converted = songs.map(\.playerSong)
        state.withLock { state in
            if state.songs.count + songs.count > Self.maximumKnownSongs {
                state.songs.removeAll()
                state.covers.removeAll()
            }
            for (song, player) in zip(songs, converted) {
                state.songs[song.id] = player
                if let url = song.coverURL { state.covers[song.id] = (song.album?.id ?? 0, url) }
            }
        }
        return converted
    }

    func knownSong(id: Int64) -> Song? { state.withLock { $0.songs[id] } }

    func knownCover(songID: Int64) -> (album: Int64, url: String)? { state.withLock { $0.covers[songID] } }
}
