// libvdla.so is made of the layers' static libraries taken whole
// (cmake/VdlaPackage.cmake); this file only gives the target a source.
