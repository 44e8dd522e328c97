module kitbot

go 1.19
