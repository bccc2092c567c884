import ALSAOutput
import AudioOutputs
import Dispatch
import FFmpegDecoder
import Foundation
import Library
import Logging
import MPDProtocol
import MPDServer
import NIOCore
import NIOPosix
import NetEase
import NetEaseLibrary
import NoSignalConfig
import PlayerCore
import PlayerRuntime
import ServerPorts
import WebServer
import Zeroconf

/// Builds the live services from the configuration and runs them until SIGINT/SIGTERM or `kill`.
public struct Application {
    public let config: Configuration
    public let logger: Logger
    public let service: MPDService

    public init(config: Configuration, logger: Logger) throws {
        self.config = config
        self.logger = logger
        MemoryPolicy.apply(logger: logger)

        let formats = FFmpegCatalog.formats()
        let handlers = URLHandlers.linked()
        let settings = Self.serverSettings(config, formats: formats, handlers: handlers)

        // The software mixer is the default (MPD's null output has none unless asked; NoSignal always offers
        // volume so phone clients show a slider). `mixer_type "none"` removes it.
        let hasMixer = config.mixerType != "none"
        let saver = config.stateFile.map { path in
            StateFileSaver(path: path, onError: { logger.error("cannot write the state file \(path): \($0)") })
        }
        var initialState = PlayerState(maximumQueueLength: config.maxPlaylistLength, volume: hasMixer ? 100 : nil)
        initialState.seedShuffle(UInt64.random(in: .min ... .max))
        // The player: FFmpeg decodes, the configured outputs play.
        let outputs: [ConfiguredOutput]
        do { outputs = try ConfiguredOutput.all(config) } catch {
            logger.critical("\(error)")
            throw ExitCodeError.failure
        }
        let store = PlayerStore(state: initialState,
                                effects: StatePersistenceEffects(saver: saver, mixers: outputs.compactMap(\.hardwareMixer),
                                                                 logger: logger),
                                logger: logger)
        if let mode = ReplayGainMode(rawValue: config.replayGain), mode != .off { _ = try? store.send(.setReplayGainMode(mode)) }

        let musicDirectory = config.musicDirectory
        // NetEase's client; `netease://song/…` plays through it (the stream URL is looked up at play time).
        let neteaseService = try Self.netEaseService(config, logger: logger)
        var curl = CurlInputFactory()
        curl.schemes = handlers.curl
        let ffmpeg = FFmpegDecoderFactory(remote: curl)
        let netEaseDecoders = neteaseService.map {
            NetEaseDecoderFactory(inner: ffmpeg, service: $0, radio: NetEaseRadio(service: $0, store: store))
        }
        self.netEaseDecoders = netEaseDecoders
        let decoders: any AudioDecoderFactory = netEaseDecoders ?? ffmpeg
        let audio = AudioPlayer(store: store, decoders: decoders,
                                converters: FFmpegPCMConverterFactory(),
                                settings: Self.engineSettings(config), locate: { song in
                                    song.isRemote || song.uri.hasPrefix("/") ? song.uri : musicDirectory + "/" + song.uri
                                }, logger: logger)
        for output in outputs {
            if let warning = output.warning { logger.warning("\(warning)") }
            audio.addOutput(output.description, enabled: output.enabled, makeSink: output.makeSink)
        }
        self.audio = audio
        fifoPaths = outputs.compactMap(\.fifoPath)
        // The state file keeps where the song was (`time:`), read from the engine when it is written.
        saver?.attach {
            store.partition(PlayerState.defaultPartition).map { partition in
                var saved = SavedState(partition)
                if partition.player.state != .stop {
                    saved.elapsed = audio.progress(partition: PlayerState.defaultPartition)?.elapsed
                }
                return saved
            }
        }
        stateSaver = saver
        let shutdown = ShutdownSignal()
        let library = try Self.library(config, formats: formats, tagMask: settings.globalTagMask, store: store,
                                       logger: logger)
        self.library = library
        if config.autoUpdate, let library {
            watcher = DirectoryWatcher(musicDirectory: config.musicDirectory, depth: config.autoUpdateDepth,
                                       logger: logger) { uri in
                do { try library.enqueueUpdate(uri: uri, discard: false) } catch {
                    logger.warning("auto_update: cannot update \(uri.isEmpty ? "/" : uri): \(error)")
                }
            }
        } else {
            watcher = nil
        }
        // NetEase: the virtual directory beside the local folders, `netease://` and share links, online search.
        var catalog: NetEaseCatalog?
        if let neteaseService {
            catalog = NetEaseCatalog(service: neteaseService, library: library, logger: logger)
        }
        self.catalog = catalog
        scrobbler = neteaseService.flatMap { service in
            config.netease.scrobble ? NetEaseScrobbler(service: service, store: store, audio: audio) : nil
        }
        let playlistDirectory: (any PlaylistStore)? = config.playlistDirectory.map {
            PlaylistDirectory(path: $0, musicDirectory: config.musicDirectory, maximumLength: config.maxPlaylistLength)
        }
        let database: (any MusicDatabase)? = library.map { library -> any MusicDatabase in
            guard let catalog else { return library }
            return CombinedDatabase(local: library, catalog: catalog)
        }
        let stickers = library.map { Self.stickers($0, catalog: catalog, store: store) }
        let context = ServerContext(settings: settings, store: store, database: database,
                                    queries: library.map { LibraryQueries($0.database) },
                                    stickers: stickers,
                                    playlists: catalog.map { CombinedPlaylists(local: playlistDirectory, catalog: $0) }
                                        ?? playlistDirectory,
                                    audio: audio, catalog: catalog,
                                    table: .standard(for: settings, hasStickers: stickers != nil), logger: logger,
                                    requestShutdown: { shutdown.trigger() })
        // Started by a systemd socket unit: its sockets instead of `bind_to_address` (MPD's `mpd.socket`).
        let activated = Systemd.listeningSockets()
        service = MPDService(context: context, endpoints: activated.isEmpty ? try Endpoints.resolve(config)
                                : activated.map { .inherited(fd: $0, isLocal: Systemd.isUnixSocket($0)) })
        self.shutdown = shutdown
        let lyrics = LyricsService(
            musicDirectory: library == nil ? nil : config.musicDirectory,
            netease: neteaseService.map { NetEaseLyricsSource(service: $0, cacheDirectory: config.cacheDirectory, logger: logger) })
        self.lyrics = lyrics
        web = config.httpPort.map { _ in
            WebServer(router: Router(bridge: ProtocolBridge(server: context), lyrics: lyrics), logger: logger)
        }
    }

    /// `zeroconf_enabled`: `_mpd._tcp` on the protocol port when the server listens on TCP, and `_http._tcp` for the
    /// page when the HTTP server runs.
    static func zeroconf(_ config: Configuration, web: Bool, logger: Logger) -> ZeroconfPublisher? {
        guard config.zeroconfEnabled else { return nil }
        var services: [ZeroconfPublisher.Service] = []
        if config.bindToAddresses.contains(where: { !$0.hasPrefix("/") && !$0.hasPrefix("@") }) {
            services.append(.init(type: "_mpd._tcp", port: config.port))
        }
        if web, let port = config.httpPort { services.append(.init(type: "_http._tcp", port: port)) }
        return services.isEmpty ? nil : ZeroconfPublisher(name: config.zeroconfName, services: services, logger: logger)
    }

    /// What the protocol server takes from the configuration.
    static func serverSettings(_ config: Configuration, formats: FFmpegCatalog.Formats,
                               handlers: URLHandlers = .linked()) -> ServerSettings {
        var settings = ServerSettings()
        settings.passwords = Dictionary(config.passwords.map { ($0.password, $0.permissions) },
                                        uniquingKeysWith: { first, _ in first })
        settings.defaultPermissions = config.defaultPermissions
        settings.localPermissions = config.localPermissions
        settings.maxConnections = config.maxConnections
        settings.connectionTimeout = config.connectionTimeout
        settings.maxCommandListSize = config.maxCommandListSize
        settings.maxOutputBufferSize = config.maxOutputBufferSize
        settings.musicDirectory = config.musicDirectory
        settings.playlistDirectory = config.playlistDirectory
        settings.decoders = [DecoderPlugin(name: "ffmpeg", suffixes: formats.suffixes, mimeTypes: formats.mimeTypes)]
        // What the linked libcurl and libavformat open, as MPD finds it (`URLHandlers`).
        settings.urlSchemes = handlers.listing(netease: true)
        return settings
    }

    /// ReplayGain and `audio_output_format` for every partition's engine.
    static func engineSettings(_ config: Configuration) -> PlaybackEngine.Settings {
        var settings = PlaybackEngine.Settings()
        settings.replayGain = ReplayGainSettings(preamp: config.replayGainPreamp,
                                                 missingPreamp: config.replayGainMissingPreamp,
                                                 limit: config.replayGainLimit)
        if let text = config.audioOutputFormat, let mask = AudioFormatMask(text) { settings.outputFormat = mask }
        return settings
    }

    /// NetEase's client and session, unless `netease { enabled "no" }`. A cookie file it cannot use ends the start.
    static func netEaseService(_ config: Configuration, logger: Logger) throws -> NetEaseService? {
        guard config.netease.enabled else { return nil }
        do {
            let options = NetEaseOptions(config.netease)
            let client = try NetEaseService.makeClient(options, logger: logger)
            return NetEaseService(client: client, settings: options, cacheDirectory: config.cacheDirectory,
                                  logger: logger)
        } catch {
            logger.critical("\(error)")
            throw ExitCodeError.failure
        }
    }

    /// The music database (SQLite) and its scanner, reading tags with libavformat; nil without a music directory.
    /// Its changes are announced through the store, and songs an update removed leave the queue.
    static func library(_ config: Configuration, formats: FFmpegCatalog.Formats, tagMask: TagMask,
                        store: PlayerStore, logger: Logger) throws -> MusicLibrary? {
        guard !config.musicDirectory.isEmpty else { return nil }
        let database: LibraryDatabase
        do {
            // What an update or a sync ran (the scanner, the indexer) is not run again until the next one.
            database = try LibraryDatabase(path: config.dbFile,
                                           afterIndexing: { MemoryPolicy.dropCode(after: "the library's indexing") })
        } catch {
            logger.critical("\(error)")
            throw ExitCodeError.failure
        }
        return MusicLibrary(database: database, musicDirectory: config.musicDirectory,
                            inspector: FFmpegInspector(suffixes: Set(formats.suffixes)), logger: logger,
                            tagMask: tagMask,
                            announce: { [weak store] changes in _ = try? store?.send(.announce(changes)) },
                            songsRemoved: { [weak store] uris in store?.dropStaleSongs(uris) })
    }

    /// Stickers: MPD's, with `liked`/`disliked` of NetEase songs going to NetEase. A dislike skips the song when it
    /// is the one playing in the default partition.
    static func stickers(_ library: MusicLibrary, catalog: NetEaseCatalog?, store: PlayerStore) -> any StickerStore {
        let local = StickerDatabase(library.database)
        guard let catalog else { return local }
        return CombinedStickers(local: local, catalog: catalog, onDisliked: { [weak store] uri in
            guard let store, let partition = store.partition(PlayerState.defaultPartition),
                  let position = partition.currentPosition, partition.queue.items[position].song.uri == uri
            else { return }
            _ = try? store.send(.next)
        })
    }

    private let shutdown: ShutdownSignal
    private let stateSaver: StateFileSaver?
    private let library: MusicLibrary?
    private let audio: AudioPlayer
    /// The pipes of this application's fifo outputs: closed when it stops. Only these: the pipes are held
    /// process-wide, and another application in the same process (tests, the fuzzer) keeps its own open.
    private let fifoPaths: [String]
    private let watcher: DirectoryWatcher?
    private let catalog: NetEaseCatalog?
    private let scrobbler: NetEaseScrobbler?
    private let netEaseDecoders: NetEaseDecoderFactory?
    private let lyrics: LyricsService
    /// The HTTP server, unless `http_port "0"`.
    private let web: WebServer?

    /// What runs beside the protocol server while it serves; `stop` ends it in order.
    public struct Services: Sendable {
        fileprivate let stopAll: @Sendable () async -> Void
        public func stop() async { await stopAll() }
    }

    /// Starts everything but the listening sockets: the effects runner, the restored state, the first update of an
    /// empty database, the NetEase sync and scrobbler. `run` serves after it; the protocol fuzzer uses it alone,
    /// with connections that come from no socket.
    public func start() async -> Services {
        let logger = self.logger
        let store = service.context.store
        let effects = Task { await store.runEffects() }
        await stateSaver?.restore(into: store, database: service.context.database)
        netEaseDecoders?.lookUpAhead(in: store)
        // MPD updates an empty database on start.
        if let library, (try? library.isEmpty) ?? false {
            do { try library.enqueueUpdate(uri: "", discard: false) } catch { logger.error("cannot update: \(error)") }
        }
        // The NetEase collection is synced on start and every `sync_interval` seconds (0: only `update NetEase`).
        let sync = catalog?.startBackgroundSync(interval: config.netease.syncInterval)
        scrobbler?.start()
        let prefetch = lyrics.prefetchAhead(in: store)
        let (library, watcher, scrobbler, stateSaver, audio, fifoPaths) = (library, watcher, scrobbler, stateSaver, audio,
                                                                           fifoPaths)
        return Services {
            sync?.stop()
            scrobbler?.stop()
            if let prefetch { store.removeObserver(prefetch) }
            library?.cancelUpdates()
            watcher?.stop()
            store.finishEffects()
            await effects.value
            // Saved before the player stops, so that `time:` is where the song was.
            stateSaver?.saveNow()
            audio.shutdown()
            for path in fifoPaths { FifoSink.shutdown(path: path) }
        }
    }

    public func run() async throws {
        let service = self.service
        let logger = self.logger
        let shutdown = self.shutdown
        // Before anything starts: a signal that arrives while the server starts stops it as soon as it serves.
        TerminationSignals.handle { _ in
            logger.notice("shutting down")
            shutdown.trigger()
        }
        let services = await start()
        let webChannels = await web?.start(Endpoints.web(config)) ?? []
        let zeroconf = Self.zeroconf(config, web: !webChannels.isEmpty, logger: logger)
        zeroconf?.start()
        let task = Task {
            do {
                try await service.run { addresses in
                    // `Type=notify`: serving from here on.
                    Systemd.notify("READY=1\nSTATUS=Serving on \(addresses.map(\.description).joined(separator: ", "))")
                }
            } catch is CancellationError {
            } catch {
                logger.critical("cannot serve: \(error)")
                throw ExitCodeError.failure
            }
        }
        shutdown.onTrigger { task.cancel() }
        do {
            try await task.value
        } catch {
            Systemd.notify("STOPPING=1\nSTATUS=Stopping")
            zeroconf?.stop()
            await WebServer.stop(webChannels)
            await services.stop()
            throw error
        }
        Systemd.notify("STOPPING=1\nSTATUS=Stopping")
        zeroconf?.stop()
        await WebServer.stop(webChannels)
        await services.stop()
        logger.notice("stopped")
    }
}

enum ExitCodeError: Error { case failure }

/// Lets `kill` (from inside the server) stop the application the same way a signal does.
final class ShutdownSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var triggered = false
    private var handler: (@Sendable () -> Void)?

    func trigger() {
        lock.lock()
        triggered = true
        let handler = self.handler
        lock.unlock()
        handler?()
    }

    func onTrigger(_ body: @escaping @Sendable () -> Void) {
        lock.lock()
        handler = body
        let already = triggered
        lock.unlock()
        if already { body() }
    }
}

/// `bind_to_address` values to listening endpoints (MPD's rules: `any`, a host name or address, or a
/// unix socket path starting with `/` or `~`).
public enum Endpoints {
    public static func resolve(_ config: Configuration) throws -> [MPDService.Endpoint] {
        config.bindToAddresses.map { address in
            if address.hasPrefix("/") { return .unix(path: address) }
            if address == "any" { return .any(port: config.port) }
            return .tcp(host: address, port: config.port)
        }
    }

    /// The HTTP server's endpoints: the TCP ones of `bind_to_address` on `http_port` (none when it is off).
    public static func web(_ config: Configuration) -> [WebServer.Endpoint] {
        guard let port = config.httpPort else { return [] }
        return config.bindToAddresses.compactMap { address in
            if address.hasPrefix("/") || address.hasPrefix("@") { return nil }
            return address == "any" ? .any(port: port) : .tcp(host: address, port: port)
        }
    }

    public static func describe(_ address: String, port: Int) -> String {
        address.hasPrefix("/") ? address : "\(address):\(port)"
    }
}

extension PlayerStore {
    /// Songs the database update removed leave every queue, one delete per entry as MPD does
    /// (`playlist::StaleSong`).
    func dropStaleSongs(_ uris: [String]) {
        let gone = Set(uris)
        for partition in state.partitions {
            for item in partition.queue.items.reversed() where gone.contains(item.song.uri) {
                _ = try? send(.deleteID(item.id), partition: partition.name)
            }
        }
    }
}
