#!/usr/bin/tclsh
# A bot in Tcl, a runtime the sandbox's view knows nothing special of: it plays each seat's first
# legal move. It speaks no more msgpack than it needs: `ready` at once (the one message that may
# come early), `move` index 0 for each `act` (a map whose first key is "type", as the arena's are).
puts stderr "tcl-first: started [clock format [clock seconds] -gmt 1]"  ;# (clock format is Tcl's library's)
fconfigure stdin -translation binary -blocking 0
fconfigure stdout -translation binary -buffering none
puts -nonewline stdout "\x82\xa4type\xa5ready\xa4name\xa9tcl-first"
set buf ""
proc readable {} {
    global buf
    append buf [read stdin]
    while {[set at [string first "\xa4type\xa3act" $buf]] >= 0} {
        puts -nonewline stdout "\x82\xa4type\xa4move\xa5index\x00"
        set buf [string range $buf [expr {$at + 9}] end]
    }
    if {[eof stdin] || [string first "\xa4type\xa3bye" $buf] >= 0} { exit 0 }
    set buf [string range $buf end-8 end]
}
fileevent stdin readable readable
vwait forever
