import MPDProtocol
import Testing
@testable import NoSignalConfig

/// The typed model: defaults, value rules, permissions, warnings.
struct ConfigurationTests {
    @Test func defaultsWithoutAFile() {
        let config = Configuration.defaults(environment: ["HOME": "/home/user"])
        #expect(config.musicDirectory == "/home/user/Music")
        #expect(config.dataDirectory == "/home/user/.local/share/nosignal")
        #expect(config.cacheDirectory == "/home/user/.cache/nosignal")
        #expect(config.playlistDirectory == "/home/user/.local/share/nosignal/playlists")
        #expect(config.dbFile == "/home/user/.local/share/nosignal/database.sqlite")
        #expect(config.stateFile == "/home/user/.local/share/nosignal/state")
        #expect(config.stickerFile == nil)
        #expect(config.bindToAddresses == ["127.0.0.1"])
        #expect(config.port == 6600)
        #expect(config.httpPort == 6680)
        #expect(config.passwords.isEmpty)
        #expect(config.defaultPermissions == .all)
        #expect(config.localPermissions == .all)
        #expect(config.maxConnections == 100)
        #expect(config.connectionTimeout == 60)
        #expect(config.maxCommandListSize == 2048 * 1024)
        #expect(config.maxOutputBufferSize == 8192 * 1024)
        #expect(config.maxPlaylistLength == 16384)
        #expect(config.audioOutputs.isEmpty)
        #expect(config.replayGain == "off")
        #expect(config.mixerType == nil)
        #expect(config.logLevel == "notice")
        #expect(config.netease == NetEaseSettings(
            apiURL: nil, realIP: nil, quality: "exhigh",
            cookieFile: "/home/user/.local/share/nosignal/netease-cookies",
            searchOnline: true, directoryName: "NetEase", timeout: 15))
        #expect(config.warnings.isEmpty)
        #expect(config.sourceFile == nil)
    }

    @Test func httpPortMovesOrTurnsTheHTTPServerOff() throws {
        func httpPort(_ text: String) throws -> Int? {
            try Configuration.parse(text: text, file: "/etc/nosignal.conf", environment: ["HOME": "/home/user"]).httpPort
        }
        #expect(try httpPort(#"http_port "8080""#) == 8080)
        #expect(try httpPort(#"http_port "0""#) == nil)
        #expect(try httpPort("") == 6680)
    }

    @Test func zeroconfOptions() throws {
        func parse(_ text: String) throws -> Configuration {
            try Configuration.parse(text: text, file: "/etc/nosignal.conf", environment: ["HOME": "/home/user"])
        }
        #expect(try parse("").zeroconfEnabled && parse("").zeroconfName == "NoSignal @ %h")
        #expect(try !parse(#"zeroconf_enabled "no""#).zeroconfEnabled)
        #expect(try parse(#"zeroconf_name "Living room""#).zeroconfName == "Living room")
        #expect(throws: ConfigError.self) { try parse(#"zeroconf_enabled "maybe""#) }
    }

    @Test func emptyFileGivesTheDefaults() throws {
        var expected = Configuration.defaults(environment: testEnvironment)
        expected.sourceFile = testFile
        #expect(try parse("") == expected)
        #expect(try parse("# nothing but comments\n\n") == expected)
    }

    @Test func xdgDirectoriesMoveTheDefaults() {
        let config = Configuration.defaults(environment: [
            "HOME": "/home/user", "XDG_DATA_HOME": "/data", "XDG_CACHE_HOME": "/cache",
        ])
        #expect(config.dataDirectory == "/data/nosignal")
        #expect(config.cacheDirectory == "/cache/nosignal")
        #expect(config.dbFile == "/data/nosignal/database.sqlite")
        // The XDG spec says to ignore relative values.
        let relative = Configuration.defaults(environment: ["HOME": "/home/user", "XDG_DATA_HOME": "data"])
        #expect(relative.dataDirectory == "/home/user/.local/share/nosignal")
    }

    @Test func dataDirectoryMovesEverythingInsideIt() throws {
        let config = try parse("""
            db_file "/var/db.sqlite"
            data_directory "/srv/nosignal"
            cache_directory "/var/cache/nosignal"
            """)
        #expect(config.dataDirectory == "/srv/nosignal")
        #expect(config.cacheDirectory == "/var/cache/nosignal")
        #expect(config.playlistDirectory == "/srv/nosignal/playlists")
        #expect(config.stateFile == "/srv/nosignal/state")
        #expect(config.netease.cookieFile == "/srv/nosignal/netease-cookies")
        #expect(config.dbFile == "/var/db.sqlite")
    }

    @Test func tildeExpandsWithHomeFromTheEnvironment() throws {
        let config = try parse("""
            music_directory "~/Music/Lossless"
            playlist_directory "~/playlists"
            db_file "~/db.sqlite"
            state_file "~/state"
            sticker_file "~/sticker.sql"
            data_directory "~"
            cache_directory "~/"
            bind_to_address "~/nosignal.socket"
            bind_to_address "any"
            bind_to_address "/run/nosignal.socket"
            bind_to_address "@nosignal"
            bind_to_address "192.168.1.2:6601"
            netease {
                cookie_file "~/.cookies"
            }
            """, environment: ["HOME": "/home/ann/"])
        #expect(config.musicDirectory == "/home/ann/Music/Lossless")
        #expect(config.playlistDirectory == "/home/ann/playlists")
        #expect(config.dbFile == "/home/ann/db.sqlite")
        #expect(config.stateFile == "/home/ann/state")
        #expect(config.stickerFile == "/home/ann/sticker.sql")
        #expect(config.dataDirectory == "/home/ann/")
        #expect(config.cacheDirectory == "/home/ann/")
        #expect(config.bindToAddresses == [
            "/home/ann/nosignal.socket", "any", "/run/nosignal.socket", "@nosignal", "192.168.1.2:6601",
        ])
        #expect(config.netease.cookieFile == "/home/ann/.cookies")
    }

    @Test func tildeUserExpandsToThatUsersHome() throws {
        let config = try parse(#"music_directory "~root/music""#)
        #expect(config.musicDirectory.hasSuffix("/music"))
        #expect(config.musicDirectory.hasPrefix("/"))
        #expect(!config.musicDirectory.contains("~"))
    }

    @Test func typedValues() throws {
        let config = try parse("""
            port "6601"
            max_connections "+7"
            connection_timeout " 30"
            max_command_list_size "1"
            max_output_buffer_size "16384"
            max_playlist_length "100000"
            replaygain "album"
            mixer_type "disabled"
            log_level "secure"
            """)
        #expect(config.port == 6601)
        #expect(config.maxConnections == 7)
        #expect(config.connectionTimeout == 30)
        #expect(config.maxCommandListSize == 1024)
        #expect(config.maxOutputBufferSize == 16384 * 1024)
        #expect(config.maxPlaylistLength == 100_000)
        #expect(config.replayGain == "album")
        #expect(config.mixerType == "none")
        #expect(config.logLevel == "info")
        #expect(try parse(#"log_level "default""#).logLevel == "notice")
        #expect(try parse(#"port "65535""#).port == 65535)
    }

    @Test func netease() throws {
        let config = try parse("""
            netease {
                api_url "http://127.0.0.1:3000"
                real_ip "116.25.146.177"
                quality "lossless"
                cookie_file "/var/lib/nosignal/cookies"
                search_online "NO"
                directory_name "网易云音乐"
                timeout "5"
            }
            """)
        #expect(config.netease == NetEaseSettings(
            apiURL: "http://127.0.0.1:3000", realIP: "116.25.146.177", quality: "lossless",
            cookieFile: "/var/lib/nosignal/cookies", searchOnline: false, directoryName: "网易云音乐", timeout: 5))
        #expect(config.warnings.isEmpty)
        #expect(try parse("netease {\n real_ip \"2001:db8::1\"\n}").netease.realIP == "2001:db8::1")
        let more = try parse("""
            netease {
                eapi_url "http://127.0.0.1:3001"
                weapi_public_key "/etc/nosignal/test-key.pem"
                sync_interval "0"
                scrobble "no"
                trial_tracks "skip"
            }
            """).netease
        #expect(more.eapiURL == "http://127.0.0.1:3001")
        #expect(more.weapiPublicKeyFile == "/etc/nosignal/test-key.pem")
        #expect(more.syncInterval == 0)
        #expect(!more.scrobble)
        #expect(more.trialTracks == .skip)
        #expect(throws: ConfigError.self) { try parse("netease {\n trial_tracks \"maybe\"\n}") }
        #expect(try parse("port \"6600\"").netease.syncInterval == NetEaseSettings.defaultSyncInterval)
    }

    /// MPD's `ParseBool`: yes/true/1 and no/false/0, any case.
    @Test(arguments: [("yes", true), ("True", true), ("1", true), ("no", false), ("FALSE", false), ("0", false)])
    func booleans(text: String, value: Bool) throws {
        #expect(try parse("netease {\n search_online \"\(text)\"\n}").netease.searchOnline == value)
    }

    // MARK: - permissions (src/Permission.cxx)

    @Test func noPasswordMeansEverything() throws {
        let config = try parse(#"port "6600""#)
        #expect(config.defaultPermissions == .all)
        #expect(config.localPermissions == .all)
    }

    @Test func anyPasswordMeansNothingByDefault() throws {
        let config = try parse(#"password "secret@read,add,control,admin""#)
        #expect(config.passwords == [PasswordEntry(password: "secret", permissions: .all)])
        #expect(config.defaultPermissions == .none)
        #expect(config.localPermissions == .none)
    }

    @Test func defaultPermissionsOverride() throws {
        let config = try parse("""
            default_permissions "read"
            password "secret@read,add,control"
            password "admin@admin,"
            """)
        #expect(config.defaultPermissions == .read)
        #expect(config.localPermissions == .read)
        #expect(config.passwords == [
            PasswordEntry(password: "secret", permissions: [.read, .add, .control, .player]),
            PasswordEntry(password: "admin", permissions: .admin),
        ])
    }

    @Test func firstAtSplitsPasswordAndPermissions() throws {
        #expect(failure(#"password "p@ss@read""#) == #"/etc/nosignal.conf:1: "password": unknown permission "ss@read""#)
        #expect(try parse(#"password "p@""#).passwords == [PasswordEntry(password: "p", permissions: .none)])
    }

    @Test func controlImpliesPlayer() throws {
        let config = try parse(#"default_permissions "read,control""#)
        #expect(config.defaultPermissions == [.read, .control, .player])
        #expect(try parse(#"default_permissions "player""#).defaultPermissions == .player)
        #expect(try parse(#"default_permissions """#).defaultPermissions == .none)
        #expect(try parse(#"default_permissions ",,read,""#).defaultPermissions == .read)
    }

    @Test func localPermissions() throws {
        let config = try parse("""
            password "secret@read"
            local_permissions "read,add,control,admin"
            """)
        #expect(config.defaultPermissions == .none)
        #expect(config.localPermissions == .all)
    }

    /// NoSignal ignores `host_permissions`, but like MPD it still takes the default to nothing, so ignoring the
    /// line locks hosts out instead of letting everyone in.
    @Test func hostPermissionsStillRemoveTheDefault() throws {
        let config = try parse("""
            default_permissions "read,add"
            host_permissions "192.168.1.2 read,add,control"
            """)
        #expect(config.defaultPermissions == .none)
        #expect(config.localPermissions == [.read, .add])
        #expect(config.warnings == [
            #"/etc/nosignal.conf:2: option "host_permissions" is not supported by NoSignal yet and is ignored"#,
        ])
    }

    // MARK: - what NoSignal does not support

    @Test func unsupportedMPDOptionsAreWarnings() throws {
        let config = try parse("""
            filesystem_charset "UTF-8"
            port "6601"
            decoder {
                plugin "wildmidi"
                enabled "no"
            }
            gapless_mp3_playback "yes"
            filesystem_charset "latin1"
            """)
        #expect(config.port == 6601)
        #expect(config.warnings == [
            #"/etc/nosignal.conf:1: option "filesystem_charset" is not supported by NoSignal yet and is ignored"#,
            #"/etc/nosignal.conf:3: option "decoder" is not supported by NoSignal yet and is ignored"#,
            #"/etc/nosignal.conf:7: option "gapless_mp3_playback" is not supported by NoSignal yet and is ignored"#,
            #"/etc/nosignal.conf:8: option "filesystem_charset" is not supported by NoSignal yet and is ignored"#,
        ])
    }

    /// Every option and block of MPD 0.23.12 and 0.24 loads; those NoSignal has no field for are warnings.
    @Test func everyMPDOptionIsAccepted() throws {
        let unsupportedOptions = OptionCatalog.mpdOptions.map(\.0).filter { !OptionCatalog.honouredOptions.contains($0) }
        let unsupportedBlocks = OptionCatalog.mpdBlocks.map(\.0).filter { !OptionCatalog.honouredBlocks.contains($0) }
        let text = unsupportedOptions.map { "\($0) \"x\"" }.joined(separator: "\n") + "\n"
            + unsupportedBlocks.map { "\($0) {\n plugin \"x\"\n}" }.joined(separator: "\n")
        let config = try parse(text)
        #expect(config.warnings.count == unsupportedOptions.count + unsupportedBlocks.count)
        #expect(OptionCatalog.mpdOptions.count == 52)
        #expect(unsupportedOptions.count == 26)
        #expect(unsupportedBlocks == ["decoder", "input", "input_cache", "archive_plugin", "playlist_plugin",
                                      "resampler", "filter", "database", "neighbors", "partition"])
        #expect(config == {
            var expected = Configuration.defaults(environment: testEnvironment)
            expected.sourceFile = testFile
            expected.warnings = config.warnings
            expected.defaultPermissions = .none  // host_permissions, see below
            return expected
        }())
    }

    @Test func honouredOptionsGiveNoWarnings() throws {
        let config = try parse("""
            music_directory "/m"
            playlist_directory "/p"
            db_file "/d"
            state_file "/s"
            sticker_file "/st"
            data_directory "/data"
            cache_directory "/cache"
            bind_to_address "any"
            port "6600"
            password "a@read"
            default_permissions "read"
            local_permissions "read"
            max_connections "1"
            connection_timeout "1"
            max_command_list_size "1"
            max_output_buffer_size "1"
            max_playlist_length "1"
            replaygain "auto"
            mixer_type "software"
            log_level "verbose"
            audio_output {
            }
            netease {
            }
            """)
        #expect(config.warnings.isEmpty)
    }

    @Test func defaultConfigPaths() {
        #expect(Configuration.defaultConfigPaths(environment: ["HOME": "/home/user"])
                == ["/home/user/.config/nosignal/nosignal.conf", "/etc/nosignal.conf"])
        #expect(Configuration.defaultConfigPaths(environment: ["HOME": "/home/user", "XDG_CONFIG_HOME": "/cfg"])
                == ["/cfg/nosignal/nosignal.conf", "/etc/nosignal.conf"])
    }
}
