"""Play: a table of seats, a duplicate match, a tournament's room of boards.

`table` plays seeded deals with one bot process per seat, checking every move with the game's rules;
`match` plays duplicate matches (and `arena bot check`); `room` plays a room's boards for a
tournament and hands each result to a callback; `seeds` derives the bots' keyed seeds. Nothing
here touches the database.
May import: `arena.process`, `arena.protocol`, `arena.errors`, `games` (never a game's rules package).
"""
