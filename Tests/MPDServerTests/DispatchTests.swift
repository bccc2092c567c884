import MPDProtocol
import Testing
@testable import MPDServer

@Suite struct DispatchTests {
    /// Every command of the table dispatches to its own row, hidden ones included.
    @Test func everyCommandFindsItsRow() {
        var settings = ServerSettings()
        settings.playlistDirectory = nil
        let table = CommandTable.standard(for: settings, hasStickers: false)
        #expect(table.commands.count < table.everyCommand.count)
        for spec in table.everyCommand {
            #expect(table.dispatch.entry(named: spec.name)?.spec.name == spec.name)
        }
    }

    /// Names that are no command: empty, a prefix or an extension of one, another case, bytes beyond ASCII.
    @Test func otherNamesFindNothing() {
        let dispatch = CommandTable.standard.dispatch
        for name in ["", "p", "pin", "pingx", "Ping", "PING", "status_", "command_list_begin", "idlex", "é", "ping\0"] {
            #expect(dispatch.entry(named: name) == nil, "\(name)")
        }
        #expect(dispatch.entry(named: "ping")?.spec.name == "ping")
        #expect(dispatch.entry(named: "idle")?.spec.name == "idle")
    }
}
