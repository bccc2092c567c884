import Testing
@testable import NoSignalConfig

/// Every way a file can be wrong, with the exact one line `nosignal` prints.
struct ConfigErrorTests {
    @Test(arguments: [
        // Names.
        (#"foo "bar""#, #"/etc/nosignal.conf:1: unknown option "foo""#),
        ("\n\n  foo {\n}", #"/etc/nosignal.conf:3: unknown option "foo""#),
        (#"1port "6600""#, "/etc/nosignal.conf:1: a name must start with a letter"),
        (#""port" "6600""#, "/etc/nosignal.conf:1: a name must start with a letter"),
        (#"port= "6600""#, "/etc/nosignal.conf:1: invalid character in name (letters, digits and '_')"),
        (#"port"6600""#, "/etc/nosignal.conf:1: invalid character in name (letters, digits and '_')"),
        ("audio_output{\n}", "/etc/nosignal.conf:1: invalid character in name (letters, digits and '_')"),
        // Values.
        ("port", #"/etc/nosignal.conf:1: "port": value missing"#),
        ("port 6600", #"/etc/nosignal.conf:1: "port": value must be in double quotes"#),
        ("port '6600'", #"/etc/nosignal.conf:1: "port": value must be in double quotes"#),
        (#"port "6600"#, #"/etc/nosignal.conf:1: "port": missing closing '"'"#),
        (#"port "6600\""#, #"/etc/nosignal.conf:1: "port": missing closing '"'"#),
        (##"port "6600"#comment"##, #"/etc/nosignal.conf:1: "port": space expected after closing '"'"#),
        (#"port "6600" "6601""#, #"/etc/nosignal.conf:1: "port": unexpected text after value"#),
        (#"port "6600" 6601"#, #"/etc/nosignal.conf:1: "port": unexpected text after value"#),
        ("port {\n}", #"/etc/nosignal.conf:1: "port" takes a quoted value, not a block"#),
        // Blocks.
        (#"audio_output "alsa""#, #"/etc/nosignal.conf:1: "audio_output": '{' expected"#),
        ("audio_output\n{\n}", #"/etc/nosignal.conf:1: "audio_output": '{' expected"#),
        (#"audio_output { type "null" }"#, #"/etc/nosignal.conf:1: "audio_output": unexpected text after '{'"#),
        ("audio_output {\n type \"null\"\n} x", "/etc/nosignal.conf:3: unexpected text after '}'"),
        ("port \"6600\"\n}", "/etc/nosignal.conf:2: unexpected '}' outside a block"),
        ("audio_output {\n type \"null\"\n\n", #"/etc/nosignal.conf:1: missing closing '}' for "audio_output""#),
        ("audio_output {\n type \"null\"\naudio_output {\n}",
         #"/etc/nosignal.conf:3: missing closing '}' for "audio_output" opened on line 1"#),
        ("audio_output {\n type\n}", #"/etc/nosignal.conf:2: "type": value missing"#),
        ("audio_output {\n type null\n}", #"/etc/nosignal.conf:2: "type": value must be in double quotes"#),
        ("audio_output {\n type \"a\" \"b\"\n}", #"/etc/nosignal.conf:2: "type": unexpected text after value"#),
        ("audio_output {\n -type \"a\"\n}", "/etc/nosignal.conf:2: a name must start with a letter"),
        ("audio_output {\n type \"alsa\"\n name \"x\"\n type \"null\"\n}",
         #"/etc/nosignal.conf:4: "type" is duplicate, first defined on line 2"#),
        ("netease {\n}\n\nnetease {\n}", #"/etc/nosignal.conf:4: "netease" is first defined on line 1 and redefined here"#),
        ("database {\n}\ndatabase {\n}", #"/etc/nosignal.conf:3: "database" is first defined on line 1 and redefined here"#),
        (#"include"#, #"/etc/nosignal.conf:1: "include": value missing"#),
    ])
    func syntax(text: String, message: String) {
        #expect(failure(text) == message)
    }

    @Test(arguments: [
        // Numbers.
        (#"port "abc""#, #"/etc/nosignal.conf:1: "port": not a number: "abc""#),
        (#"port "66 00""#, #"/etc/nosignal.conf:1: "port": not a number: "66 00""#),
        (#"port """#, #"/etc/nosignal.conf:1: "port": not a number: """#),
        (#"port "0""#, #"/etc/nosignal.conf:1: "port": must be a positive number: "0""#),
        (#"port "-1""#, #"/etc/nosignal.conf:1: "port": must be a positive number: "-1""#),
        (#"port "65536""#, #"/etc/nosignal.conf:1: "port": not a valid port (1-65535): "65536""#),
        (#"http_port "65536""#,
         #"/etc/nosignal.conf:1: "http_port": not a valid port (0-65535, 0 turns the HTTP server off): "65536""#),
        (#"http_port "web""#,
         #"/etc/nosignal.conf:1: "http_port": not a valid port (0-65535, 0 turns the HTTP server off): "web""#),
        (#"port "99999999999999999999""#, #"/etc/nosignal.conf:1: "port": number out of range: "99999999999999999999""#),
        (#"max_connections "0""#, #"/etc/nosignal.conf:1: "max_connections": must be a positive number: "0""#),
        (#"connection_timeout "1m""#, #"/etc/nosignal.conf:1: "connection_timeout": not a number: "1m""#),
        (#"max_playlist_length "-5""#, #"/etc/nosignal.conf:1: "max_playlist_length": must be a positive number: "-5""#),
        (#"max_command_list_size "2M""#, #"/etc/nosignal.conf:1: "max_command_list_size": not a number: "2M""#),
        (#"max_output_buffer_size "0""#,
         #"/etc/nosignal.conf:1: "max_output_buffer_size": must be a positive number: "0""#),
        (#"max_output_buffer_size "9223372036854775807""#,
         #"/etc/nosignal.conf:1: "max_output_buffer_size": number out of range: "9223372036854775807""#),
        // Enumerations.
        (#"replaygain "loud""#,
         #"/etc/nosignal.conf:1: "replaygain": unrecognized replay gain mode "loud" (off, track, album or auto)"#),
        (#"mixer_type "alsa""#,
         #"/etc/nosignal.conf:1: "mixer_type": unrecognized mixer type "alsa" (hardware, software, null or none)"#),
        (#"log_level "debug""#,
         #"/etc/nosignal.conf:1: "log_level": unknown log level "debug" (error, warning, notice, info or verbose)"#),
        // Permissions and passwords.
        (#"default_permissions "read,write""#, #"/etc/nosignal.conf:1: "default_permissions": unknown permission "write""#),
        (#"default_permissions "read, add""#, #"/etc/nosignal.conf:1: "default_permissions": unknown permission " add""#),
        (#"local_permissions "Admin""#, #"/etc/nosignal.conf:1: "local_permissions": unknown permission "Admin""#),
        (#"password "secret""#, #"/etc/nosignal.conf:1: "password": "@" not found in password string"#),
        ("port \"6600\"\npassword \"secret@read,play\"", #"/etc/nosignal.conf:2: "password": unknown permission "play""#),
        // Paths.
        (#"music_directory "Music""#, #"/etc/nosignal.conf:1: "music_directory": not an absolute path: "Music""#),
        (#"db_file "./db""#, #"/etc/nosignal.conf:1: "db_file": not an absolute path: "./db""#),
        (#"data_directory """#, #"/etc/nosignal.conf:1: "data_directory": not an absolute path: """#),
        (#"music_directory "nfs://server/music""#,
         #"/etc/nosignal.conf:1: "music_directory": only local paths are supported, not "nfs://server/music""#),
        (#"state_file "~no-such-user-nosignal/state""#,
         #"/etc/nosignal.conf:1: "state_file": no such user: "no-such-user-nosignal""#),
        (#"bind_to_address """#, #"/etc/nosignal.conf:1: "bind_to_address": value is empty"#),
        // The netease block.
        ("netease {\n  quality \"best\"\n}",
         #"/etc/nosignal.conf:2: "quality": unknown quality level "best" (standard, higher, exhigh, lossless, hires, jyeffect, sky, jymaster)"#),
        ("netease {\n  search_online \"maybe\"\n}",
         #"/etc/nosignal.conf:2: "search_online": not a valid boolean ("yes" or "no"): "maybe""#),
        ("netease {\n  api_url \"music.163.com\"\n}", #"/etc/nosignal.conf:2: "api_url": not an http(s) URL: "music.163.com""#),
        ("netease {\n  api_url \"https://\"\n}", #"/etc/nosignal.conf:2: "api_url": not an http(s) URL: "https://""#),
        ("netease {\n  real_ip \"116.25.146.300\"\n}", #"/etc/nosignal.conf:2: "real_ip": not an IP address: "116.25.146.300""#),
        ("netease {\n  real_ip \"localhost\"\n}", #"/etc/nosignal.conf:2: "real_ip": not an IP address: "localhost""#),
        ("netease {\n  directory_name \"Net/Ease\"\n}",
         #"/etc/nosignal.conf:2: "directory_name": must be a non-empty name without '/': "Net/Ease""#),
        ("netease {\n  timeout \"0\"\n}", #"/etc/nosignal.conf:2: "timeout": must be a positive number: "0""#),
        ("netease {\n  sync_interval \"-1\"\n}", #"/etc/nosignal.conf:2: "sync_interval": not a number of seconds: "-1""#),
        ("netease {\n  scrobble \"maybe\"\n}", #"/etc/nosignal.conf:2: "scrobble": not a valid boolean ("yes" or "no"): "maybe""#),
        ("netease {\n  eapi_url \"interface.music.163.com\"\n}", #"/etc/nosignal.conf:2: "eapi_url": not an http(s) URL: "interface.music.163.com""#),
        ("netease {\n  weapi_public_key \"key.pem\"\n}", #"/etc/nosignal.conf:2: "weapi_public_key": not an absolute path: "key.pem""#),
        ("netease {\n  cookie_file \"cookies\"\n}", #"/etc/nosignal.conf:2: "cookie_file": not an absolute path: "cookies""#),
        ("netease {\n  quality \"lossless\"\n  proxy \"x\"\n}", #"/etc/nosignal.conf:3: "netease": unknown setting "proxy""#),
    ])
    func values(text: String, message: String) {
        #expect(failure(text) == message)
    }

    /// The secret must not end up in logs when the line is wrong.
    @Test func passwordErrorsDoNotShowTheSecret() throws {
        let message = try #require(failure(#"password "hunter2""#))
        #expect(!message.contains("hunter2"))
    }

    @Test func missingFile() {
        #expect(throws: ConfigError(file: "/nonexistent/nosignal.conf", line: nil,
                                    message: "cannot read configuration file: no such file")) {
            try Configuration.load(path: "/nonexistent/nosignal.conf", environment: testEnvironment)
        }
    }

    @Test func directoryInsteadOfFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        #expect(throws: ConfigError(file: directory.path, line: nil, message: "cannot read configuration file: is a directory")) {
            try Configuration.load(path: directory.path, environment: testEnvironment)
        }
    }

    @Test func descriptionShapes() {
        #expect(ConfigError(file: "/a", line: 3, message: "m").description == "/a:3: m")
        #expect(ConfigError(file: "/a", line: nil, message: "m").description == "/a: m")
        #expect(ConfigError(file: nil, line: nil, message: "m").description == "m")
        #expect(!ConfigError(file: "/a", line: 3, message: "m").description.contains("\n"))
    }
}
