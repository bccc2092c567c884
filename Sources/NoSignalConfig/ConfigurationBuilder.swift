import MPDProtocol

/// Turns the parsed file into a `Configuration`: checks each value where its type is known and fills in the
/// defaults. Only the value that wins is checked (an overridden line is never looked at), as in MPD.
struct ConfigurationBuilder {
    let parsed: ParsedConfigFile
    let environment: [String: String]
    let expander: PathExpander

    init(parsed: ParsedConfigFile, environment: [String: String]) {
        self.parsed = parsed
        self.environment = environment
        self.expander = PathExpander(home: PathExpander.home(from: environment))
    }

    func build(sourceFile: String?) throws(ConfigError) -> Configuration {
        let defaults = Configuration.defaults(environment: environment)
        let dataDirectory = try path("data_directory") ?? defaults.dataDirectory
        let cacheDirectory = try path("cache_directory") ?? defaults.cacheDirectory
        var result = Configuration.defaults(home: expander.home, dataDirectory: dataDirectory,
                                            cacheDirectory: cacheDirectory)
        result.sourceFile = sourceFile
        result.warnings = parsed.warnings

        if let music = try path("music_directory") { result.musicDirectory = music }
        if let playlists = try path("playlist_directory") { result.playlistDirectory = playlists }
        if let db = try path("db_file") { result.dbFile = db }
        if let state = try path("state_file") { result.stateFile = state }
        if let stickers = try path("sticker_file") { result.stickerFile = stickers }

        let addresses = try all("bind_to_address").map { (option) throws(ConfigError) in try bindAddress(option) }
        if !addresses.isEmpty { result.bindToAddresses = addresses }
        if let port = last("port") {
            let value = try positive(port, name: "port")
            guard value <= 65535 else { throw error(port, "port", "not a valid port (1-65535): \"\(port.value)\"") }
            result.port = value
        }

        if let option = last("http_port") {
            guard let value = Int(option.value), (0...65535).contains(value) else {
                throw error(option, "http_port", "not a valid port (0-65535, 0 turns the HTTP server off): \"\(option.value)\"")
            }
            result.httpPort = value == 0 ? nil : value
        }

        if let option = last("zeroconf_enabled") {
            guard let value = ConfigurationBuilder.boolean(option.value) else {
                throw error(option, "zeroconf_enabled", "\"yes\" or \"no\" expected, got \"\(option.value)\"")
            }
            result.zeroconfEnabled = value
        }
        if let option = last("zeroconf_name") {
            guard !option.value.isEmpty else { throw error(option, "zeroconf_name", "a name is needed") }
            result.zeroconfName = option.value
        }

        try applyPermissions(to: &result)

        if let option = last("max_connections") { result.maxConnections = try positive(option, name: "max_connections") }
        if let option = last("connection_timeout") {
            result.connectionTimeout = try positive(option, name: "connection_timeout")
        }
        if let option = last("max_playlist_length") {
            result.maxPlaylistLength = try positive(option, name: "max_playlist_length")
        }
        if let option = last("max_command_list_size") {
            result.maxCommandListSize = try kibibytes(option, name: "max_command_list_size")
        }
        if let option = last("max_output_buffer_size") {
            result.maxOutputBufferSize = try kibibytes(option, name: "max_output_buffer_size")
        }

        if let option = last("replaygain") {
            guard ["off", "track", "album", "auto"].contains(option.value) else {
                throw error(option, "replaygain",
                            "unrecognized replay gain mode \"\(option.value)\" (off, track, album or auto)")
            }
            result.replayGain = option.value
        }
        for (name, keyPath) in [("replaygain_preamp", \Configuration.replayGainPreamp),
                                 ("replaygain_missing_preamp", \Configuration.replayGainMissingPreamp)] {
            guard let option = last(name) else { continue }
            guard let value = Double(option.value), (-15...15).contains(value) else {
                throw error(option, name, "number between -15 and 15 expected, got \"\(option.value)\"")
            }
            result[keyPath: keyPath] = value
        }
        if let option = last("auto_update") {
            guard let value = ConfigurationBuilder.boolean(option.value) else {
                throw error(option, "auto_update", "\"yes\" or \"no\" expected, got \"\(option.value)\"")
            }
            result.autoUpdate = value
        }
        if let option = last("auto_update_depth") {
            guard let value = Int(option.value), value >= 0 else {
                throw error(option, "auto_update_depth", "non-negative integer expected, got \"\(option.value)\"")
            }
            result.autoUpdateDepth = value
        }
        if let option = last("replaygain_limit") {
            guard let value = ConfigurationBuilder.boolean(option.value) else {
                throw error(option, "replaygain_limit", "\"yes\" or \"no\" expected, got \"\(option.value)\"")
            }
            result.replayGainLimit = value
        }
        if let option = last("audio_output_format") {
            let parts = option.value.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3 else {
                throw error(option, "audio_output_format", "expected SAMPLERATE:BITS:CHANNELS, got \"\(option.value)\"")
            }
            result.audioOutputFormat = option.value
        }
        if let option = last("mixer_type") {
            let aliases = ["hardware": "hardware", "software": "software", "null": "null", "none": "none",
                           "disabled": "none"]
            guard let type = aliases[option.value] else {
                throw error(option, "mixer_type",
                            "unrecognized mixer type \"\(option.value)\" (hardware, software, null or none)")
            }
            result.mixerType = type
        }
        if let option = last("log_level") {
            let aliases = ["error": "error", "warning": "warning", "notice": "notice", "default": "notice",
                           "info": "info", "secure": "info", "verbose": "verbose"]
            guard let level = aliases[option.value] else {
                throw error(option, "log_level",
                            "unknown log level \"\(option.value)\" (error, warning, notice, info or verbose)")
            }
            result.logLevel = level
        }

        result.audioOutputs = parsed.blocks["audio_output"] ?? []
        if let block = parsed.blocks["netease"]?.last {
            result.netease = try netease(block, defaults: result.netease)
        }
        return result
    }

    /// MPD's `ParseBool`: yes/no, true/false, 1/0.
    static func boolean(_ text: String) -> Bool? {
        switch text {
        case "yes", "true", "1": true
        case "no", "false", "0": false
        default: nil
        }
    }

    // MARK: - permissions

    /// MPD's `initPermissions`: any password takes the default to nothing; `default_permissions` then sets it;
    /// `local_permissions` defaults to it; finally `host_permissions` takes it to nothing again.
    private func applyPermissions(to result: inout Configuration) throws(ConfigError) {
        var defaultPermissions = Permission.all
        for option in all("password") {
            defaultPermissions = .none
            guard let at = option.value.firstIndex(of: "@") else {
                throw error(option, "password", "\"@\" not found in password string")
            }
            let secret = String(option.value[..<at])
            let permissions = try permissionList(option, name: "password",
                                                 list: String(option.value[option.value.index(after: at)...]))
            result.passwords.append(PasswordEntry(password: secret, permissions: permissions))
        }
        if let option = last("default_permissions") {
            defaultPermissions = try permissionList(option, name: "default_permissions", list: option.value)
        }
        result.localPermissions = try last("local_permissions").map { (option) throws(ConfigError) in
            try permissionList(option, name: "local_permissions", list: option.value)
        } ?? defaultPermissions
        if !all("host_permissions").isEmpty { defaultPermissions = .none }
        result.defaultPermissions = defaultPermissions
    }

    private func permissionList(_ option: OptionValue, name: String, list: String) throws(ConfigError) -> Permission {
        do {
            return try Permission(parsing: list)
        } catch {
            throw self.error(option, name, "unknown permission \"\(error.name)\"")
        }
    }

    // MARK: - netease

    private func netease(_ block: ConfigBlock, defaults: NetEaseSettings) throws(ConfigError) -> NetEaseSettings {
        var settings = defaults
        for entry in block.values {
            let value = entry.value
            let fail = { (message: String) -> ConfigError in block.error(message, key: entry.key) }
            switch entry.key {
            case "api_url", "eapi_url":
                let host = value.hasPrefix("https://") ? value.dropFirst(8)
                    : value.hasPrefix("http://") ? value.dropFirst(7) : ""
                guard !host.isEmpty else { throw fail("not an http(s) URL: \"\(value)\"") }
                if entry.key == "api_url" { settings.apiURL = value } else { settings.eapiURL = value }
            case "weapi_public_key":
                settings.weapiPublicKeyFile = try expandPath(value, name: entry.key,
                                                             at: Location(file: block.file, line: entry.line))
            case "sync_interval":
                guard let number = Self.integer(value), let seconds = number, seconds >= 0 else {
                    throw fail("not a number of seconds: \"\(value)\"")
                }
                settings.syncInterval = seconds
            case "scrobble":
                guard let flag = Self.bool(value) else {
                    throw fail("not a valid boolean (\"yes\" or \"no\"): \"\(value)\"")
                }
                settings.scrobble = flag
            case "trial_tracks":
                guard let policy = NetEaseSettings.TrialPolicy(rawValue: value) else {
                    throw fail("must be \"play\" or \"skip\": \"\(value)\"")
                }
                settings.trialTracks = policy
            case "real_ip":
                guard Self.isIPAddress(value) else { throw fail("not an IP address: \"\(value)\"") }
                settings.realIP = value
            case "quality":
                guard NetEaseSettings.qualityLevels.contains(value) else {
                    throw fail("unknown quality level \"\(value)\" ("
                               + NetEaseSettings.qualityLevels.joined(separator: ", ") + ")")
                }
                settings.quality = value
            case "cookie_file":
                settings.cookieFile = try expandPath(value, name: entry.key,
                                                     at: Location(file: block.file, line: entry.line))
            case "search_online", "enabled":
                guard let flag = Self.bool(value) else {
                    throw fail("not a valid boolean (\"yes\" or \"no\"): \"\(value)\"")
                }
                if entry.key == "enabled" { settings.enabled = flag } else { settings.searchOnline = flag }
            case "directory_name":
                guard !value.isEmpty, !value.contains("/") else {
                    throw fail("must be a non-empty name without '/': \"\(value)\"")
                }
                settings.directoryName = value
            case "timeout":
                settings.timeout = try positive(OptionValue(value: value, file: block.file, line: entry.line),
                                                name: entry.key)
            default:
                throw ConfigError(file: block.file, line: entry.line,
                                  message: "\"netease\": unknown setting \"\(entry.key)\"")
            }
        }
        return settings
    }

    // MARK: - values

    private func last(_ name: String) -> OptionValue? { parsed.options[name]?.last }

    private func all(_ name: String) -> [OptionValue] { parsed.options[name] ?? [] }

    private func error(_ option: OptionValue, _ name: String, _ message: String) -> ConfigError {
        ConfigError(file: option.file, line: option.line, message: "\"\(name)\": \(message)")
    }

    private func path(_ name: String) throws(ConfigError) -> String? {
        guard let option = last(name) else { return nil }
        return try expandPath(option.value, name: name, at: Location(file: option.file, line: option.line))
    }

    private func expandPath(_ value: String, name: String, at: Location) throws(ConfigError) -> String {
        do {
            return try expander.expand(value)
        } catch {
            switch error {
            case .notAbsolute where value.contains("://"):
                throw at.error("\"\(name)\": only local paths are supported, not \"\(value)\"")
            case .notAbsolute:
                throw at.error("\"\(name)\": not an absolute path: \"\(value)\"")
            case .noSuchUser(let user):
                throw at.error("\"\(name)\": no such user: \"\(user)\"")
            }
        }
    }

    /// MPD's `ServerSocketAddGeneric` decides by the first character: `/` and `~` are unix sockets (and `~` is
    /// expanded like any path), `@` an abstract socket, anything else `any` or a host.
    private func bindAddress(_ option: OptionValue) throws(ConfigError) -> String {
        guard !option.value.isEmpty else { throw error(option, "bind_to_address", "value is empty") }
        guard option.value.hasPrefix("~") else { return option.value }
        return try expandPath(option.value, name: "bind_to_address",
                              at: Location(file: option.file, line: option.line))
    }

    /// MPD's `GetPositive`: `strtol` in base 10 with nothing after the digits, then > 0.
    private func positive(_ option: OptionValue, name: String) throws(ConfigError) -> Int {
        guard let number = Self.integer(option.value) else {
            throw error(option, name, "not a number: \"\(option.value)\"")
        }
        guard let value = number else { throw error(option, name, "number out of range: \"\(option.value)\"") }
        guard value > 0 else { throw error(option, name, "must be a positive number: \"\(option.value)\"") }
        return value
    }

    /// MPD's client limits are positive numbers of KiB (`src/client/Config.cxx`); we keep bytes.
    private func kibibytes(_ option: OptionValue, name: String) throws(ConfigError) -> Int {
        let (bytes, overflow) = try positive(option, name: name).multipliedReportingOverflow(by: 1024)
        guard !overflow else { throw error(option, name, "number out of range: \"\(option.value)\"") }
        return bytes
    }

    /// `strtol(s, &end, 10)` with `*end == 0`: leading white space, an optional sign, at least one digit.
    /// nil when it is not a number; `.some(nil)` when it is one but does not fit.
    static func integer(_ text: String) -> Int?? {
        var bytes = Substring(text).utf8.drop { [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains($0) }
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty, bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        var value = 0
        for digit in bytes {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) = shifted.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return .some(nil) }
            value = added
        }
        return .some(negative ? -value : value)
    }

    /// MPD's `ParseBool`: yes/true/1 and no/false/0, in any case.
    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: return nil
        }
    }

    /// A dotted IPv4 address, or something shaped like an IPv6 one (hex groups and colons, maybe a trailing
    /// IPv4 part); the HTTP layer only copies it into a header.
    static func isIPAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                && (Int(part) ?? 256) <= 255
        }) {
            return true
        }
        let colons = text.filter { $0 == ":" }.count
        return colons >= 2 && colons <= 7
            && text.allSatisfy { $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }
    }
}
