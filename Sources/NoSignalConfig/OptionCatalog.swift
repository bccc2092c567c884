/// Every top-level name the file may use: MPD's own (`src/config/Templates.cxx`, the union of MPD 0.23.12 and
/// 0.24.x, so a config written for either version loads), plus NoSignal's additions. Knowing MPD's full list is
/// what lets an MPD user's file load with warnings for what NoSignal ignores, while a typo is still an error.
enum OptionCatalog {
    enum Kind: Equatable {
        /// `name "value"`.
        case option
        /// `name { … }`.
        case block
    }

    struct Spec: Equatable {
        var name: String
        var kind: Kind
        /// MPD's `repeatable` flag. A repeated non-repeatable option replaces the earlier value (MPD ≥ 0.21.19,
        /// so an included file can override); a repeated non-repeatable block is an error.
        var repeatable: Bool
        /// NoSignal reads it; anything else known is accepted with a warning.
        var honoured: Bool
    }

    /// `config_param_templates`: name and repeatable. MPD also marks some deprecated (`buffer_before_play`,
    /// `http_proxy_*`, `id3v1_encoding`, `gapless_mp3_playback`, `despotify_*`); NoSignal ignores those anyway.
    /// `despotify_*` exist only up to 0.23, `mixramp_analyzer` only from 0.24.
    static let mpdOptions: [(String, Bool)] = [
        ("music_directory", false),
        ("playlist_directory", false),
        ("follow_inside_symlinks", false),
        ("follow_outside_symlinks", false),
        ("db_file", false),
        ("sticker_file", false),
        ("log_file", false),
        ("pid_file", false),
        ("state_file", false),
        ("state_file_interval", false),
        ("restore_paused", false),
        ("user", false),
        ("group", false),
        ("bind_to_address", true),
        ("port", false),
        ("log_level", false),
        ("zeroconf_name", false),
        ("zeroconf_enabled", false),
        ("password", true),
        ("host_permissions", true),
        ("local_permissions", false),
        ("default_permissions", false),
        ("audio_output_format", false),
        ("mixer_type", false),
        ("replaygain", false),
        ("replaygain_preamp", false),
        ("replaygain_missing_preamp", false),
        ("replaygain_limit", false),
        ("volume_normalization", false),
        ("samplerate_converter", false),
        ("audio_buffer_size", false),
        ("buffer_before_play", false),
        ("http_proxy_host", false),
        ("http_proxy_port", false),
        ("http_proxy_user", false),
        ("http_proxy_password", false),
        ("connection_timeout", false),
        ("max_connections", false),
        ("max_playlist_length", false),
        ("max_command_list_size", false),
        ("max_output_buffer_size", false),
        ("filesystem_charset", false),
        ("id3v1_encoding", false),
        ("metadata_to_use", false),
        ("save_absolute_paths_in_playlists", false),
        ("gapless_mp3_playback", false),
        ("auto_update", false),
        ("auto_update_depth", false),
        ("despotify_user", false),
        ("despotify_password", false),
        ("despotify_high_bitrate", false),
        ("mixramp_analyzer", false),
    ]

    /// `config_block_templates`: name and repeatable. `archive_plugin` and `partition` are new in 0.24.
    static let mpdBlocks: [(String, Bool)] = [
        ("audio_output", true),
        ("decoder", true),
        ("input", true),
        ("input_cache", false),
        ("archive_plugin", true),
        ("playlist_plugin", true),
        ("resampler", false),
        ("filter", true),
        ("database", false),
        ("neighbors", true),
        ("partition", true),
    ]

    static let noSignalOptions = ["data_directory", "cache_directory", "http_port"]
    static let noSignalBlocks = ["netease"]

    /// The options `Configuration` has a field for.
    static let honouredOptions: Set<String> = [
        "music_directory", "playlist_directory", "db_file", "state_file", "sticker_file",
        "bind_to_address", "port", "password", "default_permissions", "local_permissions",
        "max_connections", "connection_timeout", "max_command_list_size", "max_output_buffer_size",
        "max_playlist_length", "replaygain", "mixer_type", "log_level", "replaygain_preamp",
        "replaygain_missing_preamp", "replaygain_limit", "audio_output_format", "auto_update", "auto_update_depth",
        "data_directory", "cache_directory", "http_port", "zeroconf_enabled", "zeroconf_name",
    ]

    static let honouredBlocks: Set<String> = ["audio_output", "netease"]

    /// The keys a `netease { … }` block may hold; anything else is an error, since no MPD file has this block
    /// and a typo there would otherwise go unnoticed.
    static let neteaseKeys: Set<String> = [
        "api_url", "eapi_url", "weapi_public_key", "real_ip", "quality", "cookie_file", "search_online",
        "directory_name", "timeout", "sync_interval", "scrobble", "enabled", "trial_tracks",
    ]

    static let specs: [String: Spec] = {
        var result: [String: Spec] = [:]
        for (name, repeatable) in mpdOptions {
            result[name] = Spec(name: name, kind: .option, repeatable: repeatable,
                                honoured: honouredOptions.contains(name))
        }
        for name in noSignalOptions {
            result[name] = Spec(name: name, kind: .option, repeatable: false, honoured: true)
        }
        for (name, repeatable) in mpdBlocks {
            result[name] = Spec(name: name, kind: .block, repeatable: repeatable,
                                honoured: honouredBlocks.contains(name))
        }
        for name in noSignalBlocks {
            result[name] = Spec(name: name, kind: .block, repeatable: false, honoured: true)
        }
        return result
    }()

    static func spec(_ name: String) -> Spec? { specs[name] }
}
