"""What every stage shares: errors that name a file and line, text I/O at the edges, progress,
document and alignment files, command-line file conventions, and corpus stages in shards."""
