"""The hostile probe's cases (issue 57), grouped so that the next probe can extend them: the web
server, run folders, archives and the command line, one file each."""
