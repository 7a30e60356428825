"""Moses's configuration files (ini: moses.ini read and written), their
checking with every file they name (check), and model filtering to an input (filter)."""
