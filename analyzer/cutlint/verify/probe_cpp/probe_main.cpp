// Everything happens in static initializers of the probed translation unit.
int main() { return 0; }
