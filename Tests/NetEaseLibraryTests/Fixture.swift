import FakeNetEase
import Foundation
import Library
import Logging
import MPDProtocol
import MPDServer
import NetEase
@testable import NetEaseLibrary
import NoSignalApp
import NoSignalConfig
import PlayerCore
import ServerPorts
import Synchronization
import TestTools
import Testing

/// The test key pair, made once per test process with openssl: the fake decrypts weapi with the private half, the
/// client gets the public half as `weapi_public_key` (a PEM file, as the configuration names it).
enum TestKeys {
    static let pair: (publicPEM: String, privateKey: RSAPrivateKey) = {
        let pem = try! CommandLineTool.rsaKeyPair()
        return (pem.publicPEM, try! RSAPrivateKey(pem: pem.privatePEM))
    }()
}

/// No local audio: the music directory stays empty, the library holds only what the sync stores.
struct NoAudioInspector: AudioFileInspector {
    struct NotAudio: Error {}
    var suffixes: Set<String> { [] }
    func inspect(path: String, includePicture: Bool) throws -> InspectedFile { throw NotAudio() }
}

/// One fake NetEase server, a NetEase session pointed at it (logged in as the demo account by cookie import, or a
/// guest), and a real on-disk SQLite library in a temporary directory, wired as the app wires them.
final class Fixture: @unchecked Sendable {
    let server: FakeNetEaseServer
    let root: String
    let settings: NetEaseOptions
    let client: NetEaseClient
    let service: NetEaseService
    let database: LibraryDatabase
    let library: MusicLibrary
    let catalog: NetEaseCatalog
    let combined: CombinedDatabase
    let playlists: CombinedPlaylists
    /// The change sets the library announced (an edit between syncs announces `database` itself).
    let announced = ChangeLog()

    static let quiet = Logger(label: "netease-library-tests") { _ in SwiftLogNoOpLogHandler() }

    var demo: DemoCatalog { server.catalog }
    var coverDirectory: String { root + "/cache/netease-covers" }

    /// `apiURL`: where the session sends its requests instead of the fake (a closed port: NetEase unreachable).
    init(loggedIn: Bool = true, timeout: Int = 10, quality: String = NetEaseSettings.defaultQuality,
         trialTracks: NetEaseSettings.TrialPolicy = .play, apiURL: String? = nil) throws {
        server = try FakeNetEaseServer(options: .init(privateKey: TestKeys.pair.privateKey))
        try server.start()
        root = NSTemporaryDirectory() + "nosignal-netease-library-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/music", withIntermediateDirectories: true)
        let keyFile = root + "/weapi-public.pem"
        try TestKeys.pair.publicPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        var settings = NetEaseSettings(apiURL: apiURL ?? server.baseURL, quality: quality,
                                       cookieFile: root + "/data/netease-cookies", timeout: timeout,
                                       eapiURL: apiURL ?? server.baseURL, weapiPublicKeyFile: keyFile, syncInterval: 0,
                                       scrobble: false)
        settings.trialTracks = trialTracks
        self.settings = NetEaseOptions(settings)
        let quiet = Self.quiet
        client = try NetEaseService.makeClient(self.settings, logger: quiet)
        if loggedIn {
            try client.cookies.merge(setCookieHeaders: [
                "MUSIC_U=\(FakeNetEaseServer.demoSession.musicU); Max-Age=15552000; Path=/",
                "__csrf=\(FakeNetEaseServer.demoSession.csrf); Max-Age=1296010; Path=/",
            ])
        }
        // Answers, back-offs and pauses last an hour here: a loaded test machine can take longer than the real
        // minute between two steps of one test.
        var pauses = NetEaseService.Pauses()
        pauses.backOff = .seconds(3600)
        pauses.unreachable = .seconds(3600)
        pauses.answerLifetime = .seconds(3600)
        service = NetEaseService(client: client, settings: self.settings, cacheDirectory: root + "/cache", logger: quiet,
                                 pauses: pauses)
        database = try LibraryDatabase(path: root + "/db/database.sqlite")
        let announced = self.announced
        library = MusicLibrary(database: database, musicDirectory: root + "/music", inspector: NoAudioInspector(),
                               logger: quiet, announce: { announced.append($0) })
        catalog = NetEaseCatalog(service: service, library: library, logger: quiet)
        combined = CombinedDatabase(local: library, catalog: catalog)
        playlists = CombinedPlaylists(local: nil, catalog: catalog)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    // MARK: Blocking calls

    /// Runs blocking work (libcurl, the sync) on a thread of its own, as the server runs it off its event loops:
    /// blocking Swift's few cooperative threads would stall every other test's `await` (and the timeout test's
    /// clock) on a two-core machine.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    func sync() async throws -> Bool { try await blocking { try self.catalog.sync() } }

    func account() async throws -> NetEaseService.Account { try await blocking { try self.service.account() } }

    // MARK: What the fake's catalogue says

    func uri(_ id: Int) -> String { "netease://song/\(id)" }

    /// The tags a song of the demo catalogue must show (Title, Artist per artist, Album, Track) and its duration.
    func expectedSong(_ id: Int) -> (title: String, artists: [String], album: String?, track: String?, duration: Double) {
        let song = demo.songs[id]!
        // Cloud uploads have no catalogue artist; NetEase keeps the uploader's tags (`pc.ar`), the fake's "demo_user".
        let artists = song.cloud ? ["demo_user"] : song.artistIDs.compactMap { demo.artists[$0]?.name }
        let album = demo.albums[song.albumID]?.name
        return (song.name, artists, album, song.no > 0 ? String(song.no) : nil,
                Double(DemoCatalog.mediaSeconds[song.media]))
    }

    func playlistName(_ id: Int) -> String { demo.playlists[id]!.name }

    // MARK: Looking at results

    /// The request paths (`/api/...`) the fake saw, oldest first.
    var apiPaths: [String] { server.requests.map(\.apiPath) }

    func entries(_ uri: String, recursive: Bool = false) async throws -> [LibraryEntry] {
        try await combined.entries(uri: uri, recursive: recursive)
    }

    /// A folder's live listing as adding it needs it: a NetEase failure is an error (a listing for `lsinfo`
    /// lists nothing instead), so the error tests see NetEase's errors through it.
    func strictEntries(_ uri: String) async throws -> [LibraryEntry] {
        try await catalog.call("cannot list \(uri)") { try self.catalog.entries(uri: uri, recursive: false) }
    }
}

/// What a callback was told (change sets, URIs), in order, for the test to look at.
final class Log<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    func append(_ element: Element) { elements.withLock { $0.append(element) } }

    var all: [Element] { elements.withLock { $0 } }

    /// What was told so far; the log is empty afterwards.
    func take() -> [Element] { elements.withLock { elements in defer { elements.removeAll() }; return elements } }
}

typealias ChangeLog = Log<Set<Change>>

extension LibraryEntry {
    var directoryPath: String? {
        if case .directory(let path, _) = self { return path }
        return nil
    }
}

extension Song {
    func tag(_ name: String) -> String? { tags.first { $0.name == name }?.value }
    func all(_ name: String) -> [String] { tags.filter { $0.name == name }.map(\.value) }
}

/// Runs `body` and returns the ACK a client would read for the `PortError` it throws (`ACKError.from`, the server's
/// one mapping); records an issue when it throws nothing or something else.
func ack(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> ACKError? {
    do {
        try await body()
        Issue.record("expected an ACK, got success", sourceLocation: sourceLocation)
    } catch let error as PortError {
        return ACKError.from(error)
    } catch {
        Issue.record("expected an ACK, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Checks that `songs` are the demo catalogue's `ids`, in order, with their tags and durations.
func expectSongs(_ songs: [Song], _ ids: [Int], in fixture: Fixture, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(songs.map(\.uri) == ids.map(fixture.uri), sourceLocation: sourceLocation)
    for (song, id) in zip(songs, ids) {
        let expected = fixture.expectedSong(id)
        #expect(song.tag("Title") == expected.title, sourceLocation: sourceLocation)
        #expect(song.all("Artist") == expected.artists, sourceLocation: sourceLocation)
        #expect(song.tag("Album") == expected.album, sourceLocation: sourceLocation)
        #expect(song.tag("Track") == expected.track, sourceLocation: sourceLocation)
        #expect(song.duration == expected.duration, sourceLocation: sourceLocation)
    }
}
