import Foundation
import MPDProtocol

/// Everything NoSignal reads from its configuration file, with the defaults filled in, so the rest of the
/// program never sees a missing value. The file uses MPD's syntax and MPD's option names, so an
/// MPD user's `mpd.conf` mostly carries over: the options NoSignal does not use yet are listed in `warnings`.
public struct Configuration: Sendable, Equatable {
    /// `music_directory`; default `~/Music`.
    public var musicDirectory: String
    /// `playlist_directory`; default `<dataDirectory>/playlists`.
    public var playlistDirectory: String?
    /// `data_directory` (NoSignal): cookies, database and state live here by default;
    /// default `$XDG_DATA_HOME/nosignal`, i.e. `~/.local/share/nosignal`.
    public var dataDirectory: String
    /// `cache_directory` (NoSignal): cover art and other caches; default `$XDG_CACHE_HOME/nosignal`, i.e.
    /// `~/.cache/nosignal`.
    public var cacheDirectory: String
    /// `db_file`; default `<dataDirectory>/database.sqlite`. NoSignal's database is SQLite, not MPD's format.
    public var dbFile: String
    /// `state_file`; default `<dataDirectory>/state`.
    public var stateFile: String?
    /// `sticker_file`; default nil: stickers live in the database.
    public var stickerFile: String?
    /// `bind_to_address`, every occurrence; default `["127.0.0.1"]` (MPD's default is every interface; ours
    /// stays private until the user opts in). Values are `any`, an address or host name (optionally with
    /// `:port`), `/absolute/socket`, `~/socket` (expanded here) or `@abstract`.
    public var bindToAddresses: [String]
    /// `port`; default 6600.
    public var port: Int
    /// `http_port`: the HTTP server (the now-playing page, its API, Cantata's lyrics path) on the same
    /// `bind_to_address` hosts; default 6680, nil when `http_port "0"` turns it off.
    public var httpPort: Int? = Configuration.defaultHTTPPort
    /// `zeroconf_enabled`: publish the server on the LAN (Avahi); default yes.
    public var zeroconfEnabled = true
    /// `zeroconf_name`: the published name, `%h` the host name; default `NoSignal @ %h`.
    public var zeroconfName = "NoSignal @ %h"
    /// `password "secret@perms"`, every occurrence in file order (MPD keeps the first of equal secrets).
    public var passwords: [PasswordEntry]
    /// What a client holds before sending a password: everything when no password is configured, nothing once
    /// one is, unless `default_permissions` says otherwise (MPD's rule, `src/Permission.cxx`). Any
    /// `host_permissions` line (which NoSignal ignores) also takes it to nothing, as in MPD, so ignoring it can
    /// only lock clients out, never let them in.
    public var defaultPermissions: Permission
    /// `local_permissions`: for clients on a unix socket; default `defaultPermissions`.
    public var localPermissions: Permission
    /// `max_connections`; default 100.
    public var maxConnections: Int
    /// `connection_timeout`, in seconds; default 60.
    public var connectionTimeout: Int
    /// `max_command_list_size`, in bytes (the file gives KiB, as in MPD); default 2048 KiB.
    public var maxCommandListSize: Int
    /// `max_output_buffer_size`, in bytes (the file gives KiB, as in MPD); default 8192 KiB.
    public var maxOutputBufferSize: Int
    /// `max_playlist_length`; default 16384.
    public var maxPlaylistLength: Int
    /// Every `audio_output { … }` block, raw; the outputs manager interprets them. Empty means "pick one":
    /// ALSA when there is a sound card, else null.
    public var audioOutputs: [ConfigBlock]
    /// `replaygain`: `off`, `track`, `album` or `auto`; default `off`.
    public var replayGain: String
    /// `auto_update`: watch the music directory (inotify) and update what changes; default no.
    public var autoUpdate = false
    /// `auto_update_depth`: how many directory levels below the music directory are watched; nil for all.
    public var autoUpdateDepth: Int?
    /// `replaygain_preamp` and `replaygain_missing_preamp`: decibels, −15…15 (MPD's bounds).
    public var replayGainPreamp: Double = 0
    public var replayGainMissingPreamp: Double = 0
    /// `replaygain_limit`: keep the gain from pushing the peak past full scale; default yes.
    public var replayGainLimit = true
    /// `audio_output_format`: what every output receives, `*` keeping the source's; nil for the source's format.
    public var audioOutputFormat: String?
    /// Top-level `mixer_type`: `hardware`, `software`, `null` or `none` (MPD's `disabled` is read as `none`).
    public var mixerType: String?
    /// `log_level`: `error`, `warning`, `notice`, `info` or `verbose` (MPD's old `default` and `secure` are
    /// read as `notice` and `info`); default `notice`.
    public var logLevel: String
    /// The `netease { … }` block.
    public var netease: NetEaseSettings
    /// `file:line: option "X" is not supported by NoSignal yet and is ignored`, one per occurrence, in file order.
    public var warnings: [String]
    /// The file that was read; nil for the built-in defaults.
    public var sourceFile: String?

    public static let defaultPort = 6600
    public static let defaultBindAddress = "127.0.0.1"
    public static let defaultMaxConnections = 100
    public static let defaultHTTPPort = 6680
    public static let defaultConnectionTimeout = 60
    public static let defaultMaxCommandListSize = 2048 * 1024
    public static let defaultMaxOutputBufferSize = 8192 * 1024
    public static let defaultMaxPlaylistLength = 16384

    public init(
        musicDirectory: String, playlistDirectory: String?, dataDirectory: String, cacheDirectory: String,
        dbFile: String, stateFile: String?, stickerFile: String?, bindToAddresses: [String], port: Int,
        passwords: [PasswordEntry], defaultPermissions: Permission, localPermissions: Permission,
        maxConnections: Int, connectionTimeout: Int, maxCommandListSize: Int, maxOutputBufferSize: Int,
        maxPlaylistLength: Int, audioOutputs: [ConfigBlock], replayGain: String, mixerType: String?,
        logLevel: String, netease: NetEaseSettings, warnings: [String], sourceFile: String?
    ) {
        self.musicDirectory = musicDirectory
        self.playlistDirectory = playlistDirectory
        self.dataDirectory = dataDirectory
        self.cacheDirectory = cacheDirectory
        self.dbFile = dbFile
        self.stateFile = stateFile
        self.stickerFile = stickerFile
        self.bindToAddresses = bindToAddresses
        self.port = port
        self.passwords = passwords
        self.defaultPermissions = defaultPermissions
        self.localPermissions = localPermissions
        self.maxConnections = maxConnections
        self.connectionTimeout = connectionTimeout
        self.maxCommandListSize = maxCommandListSize
        self.maxOutputBufferSize = maxOutputBufferSize
        self.maxPlaylistLength = maxPlaylistLength
        self.audioOutputs = audioOutputs
        self.replayGain = replayGain
        self.mixerType = mixerType
        self.logLevel = logLevel
        self.netease = netease
        self.warnings = warnings
        self.sourceFile = sourceFile
    }

    /// The configuration with no file at all: NoSignal must run without one.
    public static func defaults(environment: [String: String]) -> Configuration {
        let home = PathExpander.home(from: environment)
        let dataDirectory = PathExpander.xdgDirectory("XDG_DATA_HOME", fallback: ".local/share", environment: environment)
        let cacheDirectory = PathExpander.xdgDirectory("XDG_CACHE_HOME", fallback: ".cache", environment: environment)
        return defaults(home: home,
                        dataDirectory: PathExpander.join(dataDirectory, "nosignal"),
                        cacheDirectory: PathExpander.join(cacheDirectory, "nosignal"))
    }

    /// The defaults once the data directory is known, since several paths live inside it.
    static func defaults(home: String, dataDirectory: String, cacheDirectory: String) -> Configuration {
        Configuration(
            musicDirectory: PathExpander.join(home, "Music"),
            playlistDirectory: PathExpander.join(dataDirectory, "playlists"),
            dataDirectory: dataDirectory,
            cacheDirectory: cacheDirectory,
            dbFile: PathExpander.join(dataDirectory, "database.sqlite"),
            stateFile: PathExpander.join(dataDirectory, "state"),
            stickerFile: nil,
            bindToAddresses: [defaultBindAddress],
            port: defaultPort,
            passwords: [],
            defaultPermissions: .all,
            localPermissions: .all,
            maxConnections: defaultMaxConnections,
            connectionTimeout: defaultConnectionTimeout,
            maxCommandListSize: defaultMaxCommandListSize,
            maxOutputBufferSize: defaultMaxOutputBufferSize,
            maxPlaylistLength: defaultMaxPlaylistLength,
            audioOutputs: [],
            replayGain: "off",
            mixerType: nil,
            logLevel: "notice",
            netease: .defaults(dataDirectory: dataDirectory),
            warnings: [],
            sourceFile: nil)
    }

    /// Reads `path` and everything it includes. `~` is expanded with `HOME` from `environment`.
    public static func load(path: String, environment: [String: String]) throws(ConfigError) -> Configuration {
        var reader = ConfigFileReader(home: PathExpander.home(from: environment))
        try reader.read(path: path)
        return try ConfigurationBuilder(parsed: reader.result, environment: environment).build(sourceFile: path)
    }

    /// Parses `text` as if it had been read from `file` (which names it in errors and anchors relative
    /// includes); for tests and for callers that already hold the text.
    public static func parse(text: String, file: String, environment: [String: String]) throws(ConfigError)
        -> Configuration {
        var reader = ConfigFileReader(home: PathExpander.home(from: environment))
        try reader.read(bytes: Array(text.utf8), file: file)
        return try ConfigurationBuilder(parsed: reader.result, environment: environment).build(sourceFile: file)
    }

    /// Where to look when `--config` is not given, in order; the caller uses the first that exists.
    /// `$XDG_CONFIG_HOME/nosignal/nosignal.conf` (or `~/.config/…`), then `/etc/nosignal.conf`.
    public static func defaultConfigPaths(environment: [String: String]) -> [String] {
        let configHome = PathExpander.xdgDirectory("XDG_CONFIG_HOME", fallback: ".config", environment: environment)
        return [PathExpander.join(configHome, "nosignal/nosignal.conf"), "/etc/nosignal.conf"]
    }
}
