import ALSAOutput
import ArgumentParser
import FFmpegDecoder
import Foundation
import Logging
import MPDServer
import NoSignalApp
import NoSignalConfig

/// The composition root: reads the configuration, builds the live services and runs them. Wiring only.
@main
struct NoSignalCommand: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "nosignal",
        abstract: "A music server that speaks the MPD protocol and plays local files and NetEase Cloud Music.",
        version: "nosignal \(version) (MPD protocol \(ServerSettings().protocolVersion))",
        subcommands: [Serve.self, CheckConfig.self, Probe.self, Login.self, Logout.self, WhoAmI.self,
                      SnapcastControlCommand.self],
        defaultSubcommand: Serve.self
    )
}

/// Options every subcommand that reads the configuration shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "The configuration file (MPD syntax). Default: ~/.config/nosignal/nosignal.conf or /etc/nosignal.conf if present, else built-in defaults.")
    var config: String?

    /// Loads the configuration, or exits with code 2 and one line naming file, line and problem.
    func load() throws -> Configuration {
        let environment = ProcessInfo.processInfo.environment
        let path = config ?? Configuration.defaultConfigPaths(environment: environment).first {
            FileManager.default.fileExists(atPath: $0)
        }
        guard let path else { return Configuration.defaults(environment: environment) }
        do {
            return try Configuration.load(path: path, environment: environment)
        } catch {
            FileHandle.standardError.write(Data("nosignal: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Check the configuration file and print what would be used.")

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let config = try options.load()
        for warning in config.warnings { print("warning: \(warning)") }
        print("configuration: \(config.sourceFile ?? "built-in defaults")")
        print("music_directory: \(config.musicDirectory)")
        print("listening on: \(config.bindToAddresses.map { Endpoints.describe($0, port: config.port) }.joined(separator: ", "))")
        print("http_port: \(config.httpPort.map(String.init) ?? "off")")
        // The outputs as the server would build them: a bad block names its file and line here too.
        do {
            let outputs = try ConfiguredOutput.all(config)
            for warning in outputs.compactMap(\.warning) { print("warning: \(warning)") }
            print("audio outputs: \(outputs.count)")
        } catch {
            FileHandle.standardError.write(Data("nosignal: \(error)\n".utf8))
            throw ExitCode(2)
        }
        print("OK")
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the server in the foreground (the default).")

    @OptionGroup var options: ConfigOptions

    @Flag(name: .shortAndLong, help: "Log debug messages.")
    var verbose = false

    func run() async throws {
        let config = try options.load()
        let level: Logger.Level = verbose ? .debug : Logging.level(forMPDLogLevel: config.logLevel)
        let journal = Systemd.logsToJournal()
        LoggingSystem.bootstrap { label in
            // Under systemd the journal stamps each line itself: a priority prefix instead of our timestamp.
            if journal {
                var handler = JournalLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "nosignal")
        for warning in config.warnings { logger.warning("\(warning)") }

        let app = try Application(config: config, logger: logger)
        try await app.run()
    }
}

enum Logging {
    /// MPD's `log_level` names (0.22+: error, warning, notice, info, verbose; older: default, secure).
    static func level(forMPDLogLevel name: String) -> Logger.Level {
        switch name {
        case "error": .error
        case "warning": .warning
        case "info", "secure": .info
        case "verbose": .debug
        default: .notice
        }
    }
}
