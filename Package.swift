// swift-tools-version:6.1
import PackageDescription

/// The module rules (CONTRIBUTING.md, docs/ARCHITECTURE.md) are enforced here: a target lists only the modules it may
/// import.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "NoSignal",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "nosignal", targets: ["nosignal"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // C system libraries and a shim each for what Swift cannot import from them.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        /// QR codes for `nosignal login` (libqrencode).
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        /// Zeroconf publishing through avahi-daemon (libavahi-client on its threaded poll).
        .systemLibrary(name: "CAvahi", providers: [.apt(["libavahi-client-dev"])]),
        /// The ID3 reader MPD uses (libid3tag: ID3v1, ID3v2.2–2.4, its conversion of old frames), so ID3 tags are read
        /// as MPD reads them (`TagScan`).
        .systemLibrary(name: "CID3Tag", pkgConfig: "id3tag", providers: [.apt(["libid3tag0-dev"])]),
        /// libmpg123, MPD 0.24's first MP3 plugin: the scan's audio format, length and raw ID3v2 tag (`MP3Scan`).
        .systemLibrary(name: "CMpg123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
        /// FFmpeg's function-like macros and the headers CFFmpeg does not cover.
        .target(name: "CFFmpegShim", dependencies: ["CFFmpeg"]),
        /// curl's variadic setopt/getinfo with their real types.
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        /// ICU as MPD uses it: the root collation (the order of directories and songs, `IcuCollate`) and 0.24's
        /// canonical form for case-insensitive filters (`IcuCanonicalize`); Debian's MPD links the same libicu.
        .target(name: "CICUText", linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]),
        /// glibc's `mallopt` and `malloc_trim` (`<malloc.h>`), for the server's memory policy.
        .systemLibrary(name: "CMalloc"),
        /// `accept4` and `eventfd` (the accepting thread of the protocol server).
        .systemLibrary(name: "CSocket"),
        /// The compiler's prefetch hint (`__builtin_prefetch`), for scans over many small heap objects.
        .systemLibrary(name: "CPrefetch"),
        /// Linux's epoll, for the protocol server's own event loops (`SocketLoop`).
        .target(name: "CEventPoll"),

        // The pure centre.
        .target(name: "MPDProtocol", dependencies: ["CICUText"], swiftSettings: swiftSettings),
        .target(name: "PlayerCore", swiftSettings: swiftSettings),
        /// Lyrics as one model (synced lines with word timings, translation and romanization, or plain text) and the
        /// formats they come in: LRC (sidecar files, embedded tags), NetEase's `lrc`/`tlyric`/`romalrc`/`yrc`.
        .target(name: "Lyrics", swiftSettings: swiftSettings),
        /// The server's ports: what the protocol needs of a music database, stored playlists, stickers and a streaming
        /// catalogue, with the values they exchange and the errors they throw. The edges implement them; the server
        /// and the wiring only see these.
        .target(name: "ServerPorts", dependencies: ["MPDProtocol", "PlayerCore"], swiftSettings: swiftSettings),
        .target(name: "PlayerRuntime", dependencies: [
            "PlayerCore",
            "MPDProtocol",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),

        // Edges.
        .target(name: "Library", dependencies: [
            "PlayerCore", "MPDProtocol", "ServerPorts", "CICUText",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        .target(name: "NetEase", dependencies: [
            "PlayerCore", "CCurl", "CCrypto", "CCurlShim", "CQREncode",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        .target(name: "FFmpegDecoder", dependencies: ["PlayerCore", "MPDProtocol", "CFFmpeg", "CFFmpegShim", "CID3Tag", "CMpg123"], swiftSettings: swiftSettings),
        .target(name: "ALSAOutput", dependencies: ["PlayerCore", "CALSA"], swiftSettings: swiftSettings),
        /// The outputs that need no C library beyond the system's: null, fifo, pipe, httpd (encoding through the
        /// `AudioEncoderFactory` port, sockets through Glibc on the output's own thread).
        .target(name: "AudioOutputs", dependencies: ["PlayerCore"], swiftSettings: swiftSettings),
        .target(name: "MPDServer", dependencies: [
            "CEventPoll", "CPrefetch", "CSocket", "MPDProtocol", "PlayerCore", "PlayerRuntime", "ServerPorts",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        /// `_mpd._tcp` (and `_http._tcp`) on the LAN through Avahi, as MPD's `zeroconf_enabled`.
        .target(name: "Zeroconf", dependencies: [
            "CAvahi", .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        /// `nosignal snapcast-control`: Snapcast's stream-plugin control script (JSON-RPC on stdin/stdout, MPD to
        /// NoSignal). Foundation and sockets only: it runs beside the server, not in it.
        .target(name: "SnapcastControl", swiftSettings: swiftSettings),
        /// The HTTP server (`http_port`): the now-playing page, its JSON API and events, Cantata's `.lyrics` and cover
        /// paths. It speaks to the player through the protocol server's own sessions (every command and answer is
        /// MPD's), and takes lyrics from a `LyricsProvider` the composition root builds.
        .target(name: "WebServer", dependencies: [
            "MPDProtocol", "PlayerCore", "PlayerRuntime", "MPDServer", "Lyrics",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        /// The configuration file (MPD syntax) and its typed model. Pure, so it is unit-tested;
        /// the executable only wires it up.
        .target(name: "NoSignalConfig", dependencies: ["MPDProtocol"], swiftSettings: swiftSettings),

        // Composition root.
        // NetEase as a music source of the server: the virtual directory, `netease://` URIs, online search, the
        // synced collection; the glue between the NetEase client, the library and the server's ports. It knows the
        // ports, not the server, and takes its settings as a value (`NetEaseLibrary.Settings`), not the configuration.
        .target(name: "NetEaseLibrary", dependencies: [
            "MPDProtocol", "PlayerCore", "PlayerRuntime", "ServerPorts", "Library", "NetEase", "Lyrics",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        /// The live server built from a configuration: every edge wired to the server's ports. A library, so that
        /// the executable and the whole-server protocol fuzzer run the same wiring.
        .target(name: "NoSignalApp", dependencies: [
            "CMalloc", "MPDProtocol", "PlayerCore", "PlayerRuntime", "ServerPorts", "MPDServer", "NoSignalConfig",
            "Library", "NetEase", "NetEaseLibrary", "FFmpegDecoder", "ALSAOutput", "AudioOutputs", "Lyrics", "WebServer", "Zeroconf",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ], swiftSettings: swiftSettings),
        /// The command line: serve, check-config, probe, login. CLI only.
        .executableTarget(name: "nosignal", dependencies: [
            "NoSignalApp", "MPDServer", "NoSignalConfig", "NetEase", "NetEaseLibrary", "FFmpegDecoder", "ALSAOutput",
            "PlayerCore", "SnapcastControl",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),

        // Test support: live clients and the real-MPD differential runner.
        /// A fake NetEase server speaking the real wire protocol (weapi/eapi), for the tests and `make demo`.
        /// Plain POSIX sockets on its own threads, so it needs nothing beyond NetEase's crypto and Foundation.
        .target(name: "FakeNetEase", dependencies: ["NetEase"], swiftSettings: swiftSettings),
        .executableTarget(name: "fake-netease", dependencies: ["FakeNetEase"], swiftSettings: swiftSettings),
        .target(name: "MPDTesting", dependencies: ["MPDProtocol"], swiftSettings: swiftSettings),
        /// The whole server under a protocol fuzzer (`WholeServerFuzzer`) and its seed corpus.
        .target(name: "ServerFuzzing", dependencies: [
            "NoSignalApp", "MPDServer", "NoSignalConfig", "MPDTesting",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ], swiftSettings: swiftSettings),
        /// libFuzzer's entry points with `-DFUZZING` (`Fuzz/run.sh`); otherwise the replay tool.
        .executableTarget(name: "nosignal-fuzz", dependencies: ["ServerFuzzing"], swiftSettings: swiftSettings),
        .target(name: "TestTools", swiftSettings: swiftSettings),

        .testTarget(name: "MPDProtocolTests", dependencies: ["MPDProtocol"], swiftSettings: swiftSettings),
        .testTarget(name: "PlayerCoreTests", dependencies: ["PlayerCore"], swiftSettings: swiftSettings),
        .testTarget(name: "LyricsTests", dependencies: ["Lyrics"], swiftSettings: swiftSettings),
        .testTarget(name: "WebServerTests", dependencies: ["WebServer", "MPDProtocol"], swiftSettings: swiftSettings),
        .testTarget(name: "PlayerRuntimeTests", dependencies: ["PlayerRuntime", "PlayerCore"], swiftSettings: swiftSettings),
        .testTarget(name: "MPDServerTests", dependencies: [
            "MPDServer", "MPDProtocol", "PlayerCore", "PlayerRuntime", "ServerPorts", "MPDTesting", "Library",
            "FFmpegDecoder", "NoSignalApp",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOTestUtils", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "NoSignalConfigTests", dependencies: ["NoSignalConfig"], swiftSettings: swiftSettings),
        .testTarget(name: "EdgeLinkTests", dependencies: ["FFmpegDecoder", "ALSAOutput", "NetEase", "Library", "PlayerCore"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "LibraryTests", dependencies: [
            "Library", "FFmpegDecoder", "PlayerCore", "MPDProtocol", "ServerPorts",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "FFmpegDecoderTests", dependencies: ["TestTools", "FFmpegDecoder", "PlayerCore"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "NetEaseTests", dependencies: ["TestTools", "NetEase", "FFmpegDecoder", "PlayerCore"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "AudioOutputTests", dependencies: ["TestTools", "AudioOutputs", "ALSAOutput", "FFmpegDecoder", "PlayerCore"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "PlaybackTests", dependencies: [
            "TestTools", "PlayerRuntime", "PlayerCore", "FFmpegDecoder", "ALSAOutput", "AudioOutputs",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "FakeNetEaseTests", dependencies: ["TestTools", "FakeNetEase", "NetEase"], swiftSettings: swiftSettings),
        .testTarget(name: "NetEaseLibraryTests", dependencies: [
            "NetEaseLibrary", "NetEase", "FakeNetEase", "Library", "MPDServer", "MPDProtocol", "PlayerCore", "ServerPorts",
            "NoSignalConfig", "TestTools", "PlayerRuntime", "FFmpegDecoder", "ALSAOutput", "NoSignalApp",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "ServerFuzzingTests", dependencies: ["ServerFuzzing"], swiftSettings: swiftSettings),
        .testTarget(name: "DifferentialTests", dependencies: ["MPDTesting"],
                    resources: [.copy("Scripts")], swiftSettings: swiftSettings),
    ]
)
