# Bulk fcc aluminium, plane waves, k-points spread over the ranks (GPAW's bulk tutorial, smaller)
from ase.build import bulk
from gpaw import GPAW, PW
al = bulk('Al', 'fcc', a=4.05)
al.calc = GPAW(mode=PW(200), kpts=(4, 4, 4), xc='LDA', txt='al.txt')
e = al.get_potential_energy()
from gpaw.mpi import world
if world.rank == 0:
    print('energy %.4f eV' % e)
